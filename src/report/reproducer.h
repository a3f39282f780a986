#ifndef TIDE_REPRODUCER_H
#define TIDE_REPRODUCER_H

#include <git2.h>

#include "buf.h"

/*
 * A day's reproducer (man/tide-reproducer.1): everything another machine
 * needs to make the same tree, build and boot it, written beside the
 * day record in DIR/days/DATE/:
 *
 *   metadata.json       the base and every tree (URL without userinfo,
 *                       branch, commit, status), trees.conf as used, the
 *                       resolutions and fixups applied, the day's commit,
 *                       its tree and the merged tree, the toolchain, the
 *                       .config, initramfs and command lines
 *   reproducer.sh       POSIX sh: fetch, pin, `tide run`, check the merged
 *                       tree, build, boot (--no-build, --no-boot)
 *   trees.pinned.conf   the trees.conf it runs with (relative paths)
 *   rr-cache/ID/        the recorded resolutions replayed
 *   fixups/TREE/N.patch the fixup commits as patches (0001.patch, ...)
 *   config              the .config built with
 *
 * Nothing is invented: a day without a build or boot has null there.
 */

/* The names of the files, for the day's readers. */
#define REPRODUCER_SCRIPT "reproducer.sh"
#define REPRODUCER_METADATA "metadata.json"
#define REPRODUCER_PINNED_CONF "trees.pinned.conf"

struct day;

struct reproducer_input {
	const char *wsdir;		/* the workspace (rr-cache, build/out/.config) */
	git_repository *repo;		/* its integration repository */
	const struct day *day;		/* the record, with "build" and "boot" if any */
	const char *conf_path;		/* trees.conf the day ran with, or NULL */
	/*
	 * Its content as read (userinfo is stripped here), or NULL: then the
	 * "trees_conf" of a metadata.json already in dir is kept.
	 */
	const char *conf_text;
};

/*
 * Write the reproducer files into dir (the day's directory, or the one
 * being assembled by a run); each file is replaced atomically.  Returns 0
 * or a TIDE_E* code.
 */
int reproducer_write(const char *dir, const struct reproducer_input *in);

/* Append s to out as one POSIX shell word in single quotes. */
void reproducer_sh_quote(struct buf *out, const char *s);

#endif
