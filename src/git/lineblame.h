#ifndef TIDE_LINEBLAME_H
#define TIDE_LINEBLAME_H

#include <stddef.h>

/*
 * Line ranges of a file and how a diff moves them, as `git log -L`
 * traces a range back through history (git's line-log.c): a commit whose
 * diff against its parent touches the range changed those lines; the
 * range then continues in the parent, where the lines it replaced were.
 * The merge stage uses them to name, for each side of a conflict, only
 * the commits that changed the conflicting lines (graph_walk_touching()
 * with lines).  Lines count from 0; a range is [start, end).
 */
struct line_range {
	long start, end;
};

/*
 * A set of ranges, kept as git keeps them: sorted, none empty, ranges
 * that overlap or meet merged.  Points are tide's own: where a side
 * removed the lines the other side changed, there is no line left to
 * trace, only the place between two lines; a commit that removed lines
 * there is the one that changed them, and the trace goes on from the
 * removed lines.
 */
struct line_ranges {
	struct line_range *v;
	size_t n, alloc;
	long *points;
	size_t npoints, points_alloc;
};

void line_ranges_release(struct line_ranges *r);
/* Add [start, end); an empty one is a point. */
void line_ranges_add(struct line_ranges *r, long start, long end);
/* out |= a (git's range_set_union(); points kept once). */
void line_ranges_union(struct line_ranges *out, const struct line_ranges *a);
int line_ranges_empty(const struct line_ranges *r);
/* "1,3 7,9": each range as git log -L would be given it (1-based, inclusive). */
char *line_ranges_format(const struct line_ranges *r);

/* The hunks of a diff from parent to target (context 0), one pair of ranges each. */
struct line_diff {
	struct line_range *parent, *target;
	size_t n, alloc;
};

/*
 * The line diff of two texts as git's collect_diff() of line-log.c makes
 * it (Myers, no context).  Returns 0 or TIDE_ERROR.
 */
int line_diff_compute(struct line_diff *out, const char *parent, size_t plen,
		      const char *target, size_t tlen);
void line_diff_release(struct line_diff *d);

/*
 * out (empty on entry) = rs carried into the parent of diff d, as git's
 * range_set_map_across_diff(): lines the diff touched are replaced by
 * the parent lines they came from, the others shifted.  Returns 1 when
 * the diff touched rs (the commit changed the lines), else 0.
 */
int line_ranges_map(struct line_ranges *out, const struct line_ranges *rs,
		    const struct line_diff *d);

/*
 * line_ranges_map() across the diff of parent and target, when the diff
 * is not needed to know the answer: the texts differ only in a middle
 * part, and every range and point is far enough before it or after it
 * that no hunk can touch it (a hunk can slide away from the middle only
 * over lines equal to lines of the middle, as xdiff's compaction slides
 * it).  Returns 0 (not touched; out set), or 1 when the diff is needed.
 * On a long history most commits changing a file change other lines
 * than the conflicting ones, and cost two memcmp()s here.
 */
int line_ranges_map_quick(struct line_ranges *out, const struct line_ranges *rs,
			  const char *parent, size_t plen, const char *target, size_t tlen);

/*
 * The conflicted regions of merged (a file with conflict markers of
 * marker_size characters, 0 for 7) as ranges of the ours and the theirs file: each
 * region's ours section is a run of lines of ours_text, its theirs
 * section of theirs_text; an empty section is a point.  *ours_ok or
 * *theirs_ok is 0 when a section could not be placed in its file (the
 * caller then cannot tell the lines, only the file).  Returns the number
 * of conflicted regions, or TIDE_ERROR.
 */
int line_ranges_of_conflicts(struct line_ranges *ours, int *ours_ok,
			     struct line_ranges *theirs, int *theirs_ok,
			     const char *merged, size_t mlen, int marker_size,
			     const char *ours_text, size_t olen,
			     const char *theirs_text, size_t tlen);

/*
 * Each "<<<<<<<" .. ">>>>>>>" region of text, markers included, passed
 * to add(payload, region, len): the hunks of a conflicted file.  Its
 * markers are of exactly marker_size characters (the file's
 * conflict-marker-size; 0 for 7): other runs of '<' are text.
 */
void conflict_regions(const char *text, size_t len, int marker_size,
		      void (*add)(void *payload, const char *region, size_t rlen), void *payload);

#endif
