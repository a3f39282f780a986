#ifndef TIDE_ALTERNATES_H
#define TIDE_ALTERNATES_H

/*
 * The object directories a repository borrows through
 * objects/info/alternates: one directory a line (absolute, or relative
 * to the objects directory naming it; empty lines and '#' lines
 * skipped), each alternate's own alternates after it, as git and
 * libgit2 follow them, at most ALTERNATES_DEPTH deep.
 */
#define ALTERNATES_DEPTH 5

/*
 * Call fn on each alternate of objects (not objects itself), in that
 * order.  fn returns 0 to go on; anything else stops the walk and is
 * returned.  An alternates file that cannot be read is none.
 */
typedef int (*alternates_fn)(const char *dir, void *payload);
int alternates_each(const char *objects, alternates_fn fn, void *payload);

#endif
