/*
 * A day's reproducer: metadata.json, reproducer.sh and the files they
 * need, beside the day record (reproducer.h, man/tide-reproducer.1).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <git2.h>
#include <jansson.h>

#include "boot.h"
#include "build.h"
#include "conf.h"
#include "day.h"
#include "error.h"
#include "proc.h"
#include "reproducer.h"
#include "rerere.h"
#include "safefs.h"
#include "text.h"
#include "util.h"

struct repro {
	const struct reproducer_input *in;
	const char *dir;
	char *conf_text, *conf_path;	/* the conf as used, or NULL */
	struct trees_conf *conf;	/* it parsed, or NULL */
	json_t *meta;
	struct buf pinned;		/* trees.pinned.conf */
	struct buf calls;		/* the script's "tree ..." lines */
};

void reproducer_sh_quote(struct buf *out, const char *s)
{
	buf_putc(out, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			buf_puts(out, "'\\''");
		else
			buf_putc(out, *s);
	}
	buf_putc(out, '\'');
}

/* A URL for the files: no userinfo at all (day.json keeps "user:***@"). */
static json_t *url_json(const char *url)
{
	char *clean;
	json_t *j;

	if (!url)
		return json_null();
	clean = url_strip_userinfo(url);
	j = json_text(clean);
	free(clean);
	return j;
}

/* Where to fetch from: the conf's resolved location (a relative path made absolute). */
static char *fetch_url(struct repro *rp, const char *name, const char *recorded)
{
	const struct tree *t = rp->conf && name ? trees_conf_find(rp->conf, name) : NULL;
	const char *url = t ? t->location : recorded;

	if (!name && rp->conf && rp->conf->base_location)
		url = rp->conf->base_location;
	return url ? url_strip_userinfo(url) : NULL;
}

static const char *status_class(enum tree_status status)
{
	if (!tree_status_in_day(status))
		return "left out";
	return status == TREE_PREVIOUS ? "previous version" : "merged";
}

static int write_file(struct repro *rp, const char *rel, const void *data, size_t len, int mode)
{
	char *path = path_join(rp->dir, rel), *slash;
	int error;

	slash = strrchr(path, '/');
	*slash = '\0';
	error = mkdir_p(path, 0777);
	*slash = '/';
	if (!error)
		error = file_write_atomic_mode(path, data, len, mode);
	free(path);
	return error;
}

/* ---- resolutions and fixups ---- */

static int id_valid(const char *id)
{
	return id && strlen(id) == 40 && strspn(id, "0123456789abcdef") == 40;
}

/* DIR/rr-cache/ID/{pre,post}image* beside the reproducer; the names into files. */
static int copy_resolution(struct repro *rp, const char *id, json_t *files)
{
	char *src = xasprintf("%s/rr-cache/%s", rp->in->wsdir, id), *rel, *path;
	struct buf data = BUF_INIT;
	struct dirent *e;
	DIR *d = opendir(src);
	int error = 0;

	if (!d) {
		free(src);
		return tide_error_set(TIDE_ENOTFOUND, "recorded resolution '%s' is no longer in rr-cache", id);
	}
	while (!error && (e = readdir(d))) {
		if (strncmp(e->d_name, "preimage", 8) && strncmp(e->d_name, "postimage", 9))
			continue;
		rel = xasprintf("rr-cache/%s/%s", id, e->d_name);
		path = path_join(src, e->d_name);
		buf_clear(&data);
		/*
		 * The store is untrusted (shared caches fill it): a link or a
		 * FIFO planted beside the variant the day used is left out, never
		 * read through into the published reproducer.
		 */
		if ((error = safefs_read_file(&data, path, RERERE_MAX_FILE)) == TIDE_EINVAL) {
			tide_error_clear();
			error = 0;
		} else if (!error &&
			   (error = write_file(rp, rel, data.ptr ? data.ptr : "", data.len, 0644)) == 0) {
			json_array_append_new(files, json_text(rel));
		}
		free(path);
		free(rel);
	}
	closedir(d);
	buf_release(&data);
	free(src);
	return error;
}

static int add_resolutions(struct repro *rp, const struct day_tree *dt, json_t *out)
{
	json_t *files;
	size_t i;
	int error = 0;

	for (i = 0; i < dt->handling.nresolutions; i++) {
		const struct day_resolution *r = &dt->handling.resolutions[i];
		const char *id = r->id;

		if (!id_valid(id))
			return tide_error_set(TIDE_EINVAL, "tree '%s': bad resolution id", dt->name);
		files = json_array();
		if ((error = copy_resolution(rp, id, files)) < 0) {
			json_decref(files);
			return error;
		}
		json_array_append_new(out, json_pack("{s:o, s:s, s:o}", "path",
						     json_text(r->path), "id", id, "files", files));
	}
	return error;
}

/* The n first-parent commits ending at tip, oldest first, as patches. */
static int add_fixups(struct repro *rp, const struct day_tree *dt, json_t *out)
{
	const char *tip = dt->handling.fixup_commit;
	char *const *names = dt->handling.fixups;
	size_t n = dt->handling.nfixups, k;
	git_commit **commits = xcalloc(n ? n : 1, sizeof(*commits));
	git_email_create_options eo;
	git_buf mail = { 0 };
	git_oid id;
	int error = 0;

	memset(&eo, 0, sizeof(eo));	/* libgit2 1.5 has no init function for these */
	eo.version = GIT_EMAIL_CREATE_OPTIONS_VERSION;
	eo.flags = GIT_EMAIL_CREATE_DEFAULT;
	git_diff_options_init(&eo.diff_opts, GIT_DIFF_OPTIONS_VERSION);
	eo.diff_opts.flags |= GIT_DIFF_SHOW_BINARY;
	git_diff_find_options_init(&eo.diff_find_opts, GIT_DIFF_FIND_OPTIONS_VERSION);
	if (!tip || !n)
		goto done;
	if (git_oid_fromstr(&id, tip) < 0 || git_commit_lookup(&commits[n - 1], rp->in->repo, &id) < 0) {
		error = tide_error_git(TIDE_ENOTFOUND, "tree '%s': fixup commit %s", dt->name, tip);
		goto done;
	}
	for (k = n - 1; k > 0; k--)
		if (git_commit_parent(&commits[k - 1], commits[k], 0) < 0) {
			error = tide_error_git(TIDE_ERROR, "tree '%s': fixups before %s", dt->name, tip);
			goto done;
		}
	for (k = 0; k < n && !error; k++) {
		char *rel = xasprintf("fixups/%s/%04zu.patch", dt->name, k + 1);

		git_buf_dispose(&mail);
		if (git_email_create_from_commit(&mail, commits[k], &eo) < 0)
			error = tide_error_git(TIDE_ERROR, "tree '%s': cannot write fixup %s", dt->name,
					       git_oid_tostr_s(git_commit_id(commits[k])));
		else if ((error = write_file(rp, rel, mail.ptr, mail.size, 0644)) == 0)
			json_array_append_new(out, json_pack("{s:s, s:o, s:o}", "commit",
				git_oid_tostr_s(git_commit_id(commits[k])),
				"name", json_text(names[k]),
				"file", json_text(rel)));
		free(rel);
	}
done:
	for (k = 0; k < n; k++)
		git_commit_free(commits[k]);
	free(commits);
	git_buf_dispose(&mail);
	return error;
}

/* ---- the trees ---- */

static void pin_tree(struct repro *rp, const struct day_tree *dt, const char *url)
{
	const struct tree *t = rp->conf ? trees_conf_find(rp->conf, dt->name) : NULL;

	if (dt->type && strcmp(dt->type, "git")) {
		/* A quilt series is fetched as it is now: the tree check tells if it moved. */
		buf_printf(&rp->pinned, "%s\t%s\t%s\n", dt->name, dt->type, url);
	} else {
		buf_printf(&rp->pinned, "%s\tgit\ttrees/%s.git#%s\n", dt->name, dt->name, dt->branch);
		buf_puts(&rp->calls, "\ttree ");
		reproducer_sh_quote(&rp->calls, dt->name);
		buf_putc(&rp->calls, ' ');
		reproducer_sh_quote(&rp->calls, url);
		buf_putc(&rp->calls, ' ');
		reproducer_sh_quote(&rp->calls, dt->branch);
		buf_putc(&rp->calls, ' ');
		reproducer_sh_quote(&rp->calls, dt->sha);
		buf_putc(&rp->calls, '\n');
	}
	/* Extras that change what is merged; contacts and limits do not. */
	if (t && tree_opt(t, "fuzz"))
		buf_printf(&rp->pinned, "#tide\t%s\tfuzz=%s\n", dt->name, tree_opt(t, "fuzz"));
}

static int add_tree(struct repro *rp, const struct day_tree *dt, json_t *trees)
{
	char *url = fetch_url(rp, dt->name, dt->url);
	json_t *o, *res = json_array(), *fix = json_array();
	int error;

	if (!ref_component_valid(dt->name) || (!dt->branch && (!dt->type || !strcmp(dt->type, "git")))) {
		error = tide_error_set(TIDE_EINVAL, "day record: bad tree '%s'", dt->name);
		goto done;
	}
	if ((error = add_resolutions(rp, dt, res)) < 0 || (error = add_fixups(rp, dt, fix)) < 0)
		goto done;
	o = json_pack("{s:o, s:o, s:o, s:o, s:o, s:s, s:o}",
		      "name", json_text(dt->name), "type", json_text(dt->type ? dt->type : "git"),
		      "url", url_json(url), "branch", json_text(dt->branch),
		      "commit", json_text(dt->sha), "status", status_class(dt->status),
		      "day_status", json_text(tree_status_name(dt->status)));
	json_object_set_new(o, "merge_commit", json_text(dt->merge_commit));
	json_object_set_new(o, "resolutions", res);
	json_object_set_new(o, "fixups", fix);
	res = fix = NULL;
	json_array_append_new(trees, o);
	/* A tree the day never had a commit of (fetch failed) merged nothing. */
	if (dt->sha && url)
		pin_tree(rp, dt, url);
done:
	json_decref(res);
	json_decref(fix);
	free(url);
	return error;
}

/* ---- the day's objects ---- */

static int day_trees_json(struct repro *rp, json_t *o)
{
	const struct day *day = rp->in->day;
	git_commit *c = NULL, *parent = NULL;
	git_oid id;
	int error = 0;

	json_object_set_new(o, "commit", json_text(day->commit));
	if (!day->commit || git_oid_fromstr(&id, day->commit) < 0 ||
	    git_commit_lookup(&c, rp->in->repo, &id) < 0 || git_commit_parent(&parent, c, 0) < 0) {
		error = tide_error_git(TIDE_ENOTFOUND, "day %s: commit %s", day->date,
				       day->commit ? day->commit : "(none)");
		goto done;
	}
	json_object_set_new(o, "tree", json_string(git_oid_tostr_s(git_commit_tree_id(c))));
	/* What the reproducer checks: Next/merge.log holds the run's time. */
	json_object_set_new(o, "merged_tree", json_string(git_oid_tostr_s(git_commit_tree_id(parent))));
done:
	git_commit_free(parent);
	git_commit_free(c);
	return error;
}

static json_t *conf_json(struct repro *rp)
{
	struct buf clean = BUF_INIT;
	json_t *o;

	if (!rp->conf_text)
		return json_null();
	text_strip_userinfo(&clean, rp->conf_text);
	o = json_pack("{s:o, s:o}", "path", json_text(rp->conf_path),
		      "content", json_text(buf_cstr(&clean)));
	buf_release(&clean);
	return o;
}

/* ---- build and boot ---- */

static char *probe(const char *tool)
{
	char *argv[] = { (char *)tool, "--version", NULL };

	return proc_first_line(argv);
}

/* From the build and boot records when they have it, else asked now (and said so). */
static json_t *toolchain_json(const struct day_build *build, const struct day_boot *boot)
{
	const struct { const char *name, *tool, *recorded; } tools[] = {
		{ "gcc", "gcc", build ? build->compiler : NULL },
		{ "binutils", "ld", build ? build->binutils : NULL },
		{ "qemu", "qemu-system-x86_64", boot ? boot->qemu_version : NULL },
	};
	json_t *o = json_object(), *from = json_object();
	size_t i;

	for (i = 0; i < ARRAY_SIZE(tools); i++) {
		const char *v = tools[i].recorded;
		char *probed = v ? NULL : probe(tools[i].tool);

		json_object_set_new(o, tools[i].name, json_text(v ? v : probed));
		json_object_set_new(from, tools[i].name,
				    json_string(v ? "record" : probed ? "probed" : "unknown"));
		free(probed);
	}
	json_object_set_new(o, "from", from);
	return o;
}

/*
 * The .config beside the reproducer: the workspace's, when it is the one
 * the day's build recorded (a later build replaces it).
 */
static json_t *config_json(struct repro *rp, const struct day_build *build)
{
	const char *want = build->config_sha256;
	char *path = xasprintf("%s/build/out/.config", rp->in->wsdir), hex[65];
	struct buf data = BUF_INIT;
	json_t *o = json_object();

	json_object_set_new(o, "sha256", want ? json_string(want) : json_null());
	if (want && file_sha256_hex(hex, path) == 0 && !strcmp(hex, want) &&
	    file_read(&data, path) == 0 && write_file(rp, "config", data.ptr, data.len, 0644) == 0) {
		json_object_set_new(o, "file", json_string("config"));
	} else {
		json_object_set_new(o, "file", json_null());
		if (want)
			json_object_set_new(o, "note", json_string(
				"the workspace's .config is no longer the one this day built with"));
	}
	tide_error_clear();
	buf_release(&data);
	free(path);
	return o;
}

static json_t *str_json(const char *s)
{
	return s ? json_text(s) : json_null();
}

static json_t *value_json(json_t *v)
{
	return v ? json_incref(v) : json_null();
}

/* The keys of the build record a reproducer needs (null when it lacks one). */
static json_t *build_json(const struct day_build *b)
{
	return json_pack("{s:o, s:o, s:o, s:o, s:o}", "status", str_json(b->status),
			 "failure", str_json(b->failure), "commit", str_json(b->commit),
			 "make_command", value_json(b->make_command), "kernel", str_json(b->kernel));
}

/* The keys of the boot record a reproducer needs (null when it lacks one). */
static json_t *boot_json(const struct day_boot *b)
{
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			 "status", str_json(b->status), "reason", str_json(b->reason),
			 "accel", str_json(b->accel),
			 "smp", day_boot_has(b, "smp") ? json_integer(b->smp) : json_null(),
			 "timeout", day_boot_has(b, "timeout") ? json_real(b->timeout) : json_null(),
			 "cmdline", str_json(b->cmdline),
			 "qemu_command", value_json(b->qemu_command),
			 "initramfs_sha256", str_json(b->initramfs_sha256));
}

static void stages(struct repro *rp, json_t *meta)
{
	const struct day *day = rp->in->day;
	json_t *b = day->build ? build_json(day->build) : json_null();

	if (day->build)
		json_object_set_new(b, "config", config_json(rp, day->build));
	json_object_set_new(meta, "build", b);
	json_object_set_new(meta, "boot", day->boot ? boot_json(day->boot) : json_null());
	json_object_set_new(meta, "toolchain", toolchain_json(day->build, day->boot));
}

/* ---- the script ---- */

static const char script_body[] =
	"TIDE=${TIDE:-tide}\n"
	"me=reproducer.sh\n"
	"here=$(cd -- \"$(dirname -- \"$0\")\" && pwd) || exit 4\n"
	"die() { printf '%s: %s\\n' \"$me\" \"$*\" >&2; exit 1; }\n"
	"usage() { printf 'usage: %s [--no-build] [--no-boot] DIR\\n' \"$me\"; }\n"
	"no_build= no_boot=\n"
	"while [ $# -gt 0 ]; do\n"
	"\tcase $1 in\n"
	"\t--no-build) no_build=1 ;;\n"
	"\t--no-boot) no_boot=1 ;;\n"
	"\t-h|--help) usage; exit 0 ;;\n"
	"\t--) shift; break ;;\n"
	"\t-*) usage >&2; exit 2 ;;\n"
	"\t*) break ;;\n"
	"\tesac\n"
	"\tshift\n"
	"done\n"
	"[ $# -eq 1 ] || { usage >&2; exit 2; }\n"
	"mkdir -p -- \"$1\" || die \"cannot create '$1'\"\n"
	"work=$(cd -- \"$1\" && pwd) || exit 1\n"
	"[ -z \"$(ls -A -- \"$work\")\" ] || die \"'$work' is not empty: give a fresh directory\"\n"
	"\n"
	"# fetch_at DIR URL REF COMMIT [BORROW]: a bare repository holding COMMIT,\n"
	"# fetched with REF (the branch as it is now) or else by its id; with\n"
	"# BORROW, a repository whose objects it uses (the base's history is not\n"
	"# fetched once per tree).\n"
	"fetch_at() {\n"
	"\tgit init -q --bare -- \"$1\" || die \"cannot create '$1'\"\n"
	"\tif [ -n \"${5:-}\" ]; then\n"
	"\t\tprintf '%s/objects\\n' \"$5\" >\"$1/objects/info/alternates\" || exit 1\n"
	"\tfi\n"
	"\tgit --git-dir=\"$1\" fetch -q -- \"$2\" \"$3\" >/dev/null 2>&1\n"
	"\tgit --git-dir=\"$1\" cat-file -e \"$4^{commit}\" 2>/dev/null ||\n"
	"\t\tgit --git-dir=\"$1\" fetch -q -- \"$2\" \"$4\" >/dev/null 2>&1 ||\n"
	"\t\tdie \"cannot fetch commit $4 from '$2'\"\n"
	"\tgit --git-dir=\"$1\" cat-file -e \"$4^{commit}\" 2>/dev/null ||\n"
	"\t\tdie \"commit $4 is not in '$2'\"\n"
	"}\n"
	"\n"
	"# tree NAME URL BRANCH COMMIT: the tree's branch pinned at the day's commit.\n"
	"tree() {\n"
	"\tprintf '%s: fetching %s at %s\\n' \"$me\" \"$1\" \"$4\"\n"
	"\tfetch_at \"$work/trees/$1.git\" \"$2\" \"refs/heads/$3\" \"$4\" \"$work/base.git\"\n"
	"\tgit --git-dir=\"$work/trees/$1.git\" update-ref \"refs/heads/$3\" \"$4\" ||\n"
	"\t\tdie \"cannot pin '$1'\"\n"
	"}\n"
	"\n"
	"printf '%s: fetching the base %s at %s\\n' \"$me\" \"$base_tag\" \"$base_commit\"\n"
	"fetch_at \"$work/base.git\" \"$base_url\" \"refs/tags/$base_tag\" \"$base_commit\"\n"
	"git --git-dir=\"$work/base.git\" update-ref \"refs/tags/$base_tag\" \"$base_commit\" ||\n"
	"\tdie \"cannot pin the base\"\n"
	"trees\n"
	"cp -- \"$here/trees.pinned.conf\" \"$work/trees.conf\" || die \"cannot write trees.conf\"\n"
	"mkdir -p -- \"$work/ws\" || die \"cannot create '$work/ws'\"\n"
	"if [ -d \"$here/rr-cache\" ]; then cp -R -- \"$here/rr-cache\" \"$work/ws/rr-cache\" || exit 1; fi\n"
	"if [ -d \"$here/fixups\" ]; then cp -R -- \"$here/fixups\" \"$work/ws/fixups\" || exit 1; fi\n"
	"\n"
	"printf '%s: running tide for %s\\n' \"$me\" \"$date\"\n"
	"\"$TIDE\" -C \"$work/ws\" -f \"$work/trees.conf\" run --date \"$date\" --no-build --no-boot \\\n"
	"\t>\"$work/run.log\" 2>&1\n"
	"rc=$?\n"
	"if [ $rc -gt 1 ]; then\n"
	"\tcat -- \"$work/run.log\" >&2\n"
	"\tdie \"tide run failed (exit status $rc)\"\n"
	"fi\n"
	"got=$(git --git-dir=\"$work/ws/repo.git\" rev-parse -q --verify \"refs/tags/$tag^1^{tree}\") ||\n"
	"\tdie \"tide made no $tag (see $work/run.log)\"\n"
	"if [ \"$got\" != \"$merged_tree\" ]; then\n"
	"\tprintf '%s: MISMATCH: the merged tree of %s is %s here, the day had %s\\n' \\\n"
	"\t\t\"$me\" \"$tag\" \"$got\" \"$merged_tree\" >&2\n"
	"\tprintf '%s: compare %s with the day'\\''s metadata.json and merge.log\\n' \\\n"
	"\t\t\"$me\" \"$work/ws/days/$date/day.json\" >&2\n"
	"\texit 1\n"
	"fi\n"
	"printf '%s: same merged tree as %s: %s\\n' \"$me\" \"$tag\" \"$got\"\n"
	"\n"
	"[ -z \"$no_build\" ] || exit 0\n"
	"if [ -z \"$config_sha256\" ]; then\n"
	"\tprintf '%s: the day recorded no build (or not its .config): stopping here\\n' \"$me\"\n"
	"\texit 0\n"
	"fi\n"
	"[ -f \"$here/config\" ] || die \"no config beside $0: the day's .config was not kept\"\n"
	"printf '%s: building with the day'\\''s .config\\n' \"$me\"\n"
	"\"$TIDE\" -C \"$work/ws\" build \"$date\" --config \"$here/config\" || die \"the build failed (exit status $?)\"\n"
	"cfg=$(sha256sum < \"$work/ws/build/out/.config\" | cut -d' ' -f1)\n"
	"if [ \"$cfg\" = \"$config_sha256\" ]; then\n"
	"\tprintf '%s: same .config (sha256 %s)\\n' \"$me\" \"$cfg\"\n"
	"else\n"
	"\tprintf '%s: warning: the .config differs (sha256 %s, the day %s): another toolchain?\\n' \\\n"
	"\t\t\"$me\" \"$cfg\" \"$config_sha256\" >&2\n"
	"fi\n"
	"\n"
	"[ -z \"$no_boot\" ] || exit 0\n"
	"if [ -z \"$boot_status\" ]; then\n"
	"\tprintf '%s: the day recorded no boot: stopping here\\n' \"$me\"\n"
	"\texit 0\n"
	"fi\n"
	"printf '%s: booting with the smoke tests (the day: %s)\\n' \"$me\" \"$boot_status\"\n"
	"\"$TIDE\" -C \"$work/ws\" boot \"$date\"\n"
	"rc=$?\n"
	"if [ -n \"$initramfs_sha256\" ]; then\n"
	"\tif sha256sum \"$work/ws/build/initramfs\"/* 2>/dev/null | grep -q \"^$initramfs_sha256 \"; then\n"
	"\t\tprintf '%s: same initramfs (sha256 %s)\\n' \"$me\" \"$initramfs_sha256\"\n"
	"\telse\n"
	"\t\tprintf '%s: warning: the initramfs differs from the day'\\''s\\n' \"$me\" >&2\n"
	"\tfi\n"
	"fi\n"
	"if [ $rc -eq 0 ]; then\n"
	"\tprintf '%s: boot passed (the day: %s)\\n' \"$me\" \"$boot_status\"\n"
	"else\n"
	"\tprintf '%s: boot did not pass (exit status %s; the day: %s)\\n' \"$me\" \"$rc\" \"$boot_status\" >&2\n"
	"fi\n"
	"exit $rc\n";

static void sh_var(struct buf *out, const char *name, const char *value)
{
	buf_printf(out, "%s=", name);
	reproducer_sh_quote(out, value ? value : "");
	buf_putc(out, '\n');
}

static void script_text(struct repro *rp, struct buf *out)
{
	const struct day *day = rp->in->day;
	const json_t *meta = rp->meta, *b = json_object_get(meta, "build");
	const json_t *cfg = json_object_get(b, "config");
	const char *cfg_sha = json_is_string(json_object_get(cfg, "file")) ? json_str(cfg, "sha256") : NULL;

	buf_puts(out, "#!/bin/sh\n");
	buf_printf(out, "# Reproduces tide's day %s (%s): man tide-reproducer.\n", day->date, day->tag);
	buf_puts(out, "#   reproducer.sh [--no-build] [--no-boot] DIR\n"
		      "# fetches the base and every tree at the day's commits into DIR, runs\n"
		      "# tide there with the day's resolutions and fixups, checks the merged\n"
		      "# tree, builds with the day's .config and boots with the smoke tests.\n"
		      "# It writes only below DIR.  $TIDE names the tide to run.\n\n");
	sh_var(out, "date", day->date);
	sh_var(out, "tag", day->tag);
	sh_var(out, "base_url", json_str(json_object_get(meta, "base"), "url"));
	sh_var(out, "base_tag", day->base_tag);
	sh_var(out, "base_commit", day->base_commit);
	sh_var(out, "merged_tree", json_str(json_object_get(meta, "day"), "merged_tree"));
	sh_var(out, "config_sha256", cfg_sha);
	sh_var(out, "boot_status", day->boot ? day->boot->status : NULL);
	sh_var(out, "initramfs_sha256", day->boot ? day->boot->initramfs_sha256 : NULL);
	buf_printf(out, "trees() {\n\t:\n%s}\n\n", buf_cstr(&rp->calls));
	buf_puts(out, script_body);
}

/* ---- all of it ---- */

static int build_meta(struct repro *rp)
{
	const struct day *day = rp->in->day;
	char *base_url = fetch_url(rp, NULL, day->base_url);
	json_t *trees = json_array(), *o = json_object();
	size_t i;
	int error = 0;

	rp->meta = json_pack("{s:i, s:o, s:o}", "version", 1, "date", json_text(day->date),
			     "tag", json_text(day->tag));
	json_object_set_new(rp->meta, "base", json_pack("{s:o, s:o, s:o, s:o}",
		"name", json_text(day->base_tag), "url", url_json(base_url),
		"tag", json_text(day->base_tag), "commit", json_text(day->base_commit)));
	json_object_set_new(rp->meta, "day", o);
	if ((error = day_trees_json(rp, o)) < 0)
		goto done;
	buf_printf(&rp->pinned, "#tide\tbase\tbase.git#%s\n", day->base_tag);
	for (i = 0; i < day->ntrees && !error; i++)
		error = add_tree(rp, &day->trees[i], trees);
	json_object_set_new(rp->meta, "trees", trees);
	trees = NULL;
	json_object_set_new(rp->meta, "trees_conf", conf_json(rp));
	stages(rp, rp->meta);
done:
	json_decref(trees);
	free(base_url);
	return error;
}

/*
 * The conf as used: given by the caller, else the one an earlier write
 * kept in metadata.json (a later trees.conf is not what the day ran).
 */
static void load_conf(struct repro *rp)
{
	const struct reproducer_input *in = rp->in;
	char *path = path_join(rp->dir, REPRODUCER_METADATA);
	struct buf old = BUF_INIT;
	json_t *prev = NULL, *c;

	if (in->conf_text) {
		rp->conf_text = xstrdup(in->conf_text);
		/* Absolute: a rewrite from another directory resolves its relative URLs. */
		rp->conf_path = in->conf_path ? path_absolute(in->conf_path) : NULL;
	} else if (safefs_read_file(&old, path, DAY_MAX_RECORD) == 0 &&
		   (prev = json_loadb(old.ptr, old.len, 0, NULL)) &&
		   json_string_value(json_object_get((c = json_object_get(prev, "trees_conf")), "content"))) {
		rp->conf_text = xstrdup(json_str(c, "content"));
		rp->conf_path = json_str(c, "path") ? xstrdup(json_str(c, "path")) : NULL;
	}
	if (rp->conf_text && rp->conf_path &&
	    trees_conf_parse_buf(&rp->conf, rp->conf_path, rp->conf_text, strlen(rp->conf_text)) < 0)
		rp->conf = NULL;	/* then the record's URLs, as written */
	tide_error_clear();
	json_decref(prev);
	buf_release(&old);
	free(path);
}

int reproducer_write(const char *dir, const struct reproducer_input *in)
{
	struct repro rp = { .in = in, .dir = dir, .pinned = BUF_INIT, .calls = BUF_INIT };
	struct buf script = BUF_INIT;
	char *text = NULL, *sub;
	int error;

	if (!in->day->base_tag || !in->day->base_commit || !in->day->date || !in->day->tag)
		return tide_error_set(TIDE_EINVAL, "day record: no base or date");
	load_conf(&rp);
	/* Resolutions and fixups of an earlier write must not linger. */
	sub = path_join(dir, "rr-cache");
	rm_rf(sub);
	free(sub);
	sub = path_join(dir, "fixups");
	rm_rf(sub);
	free(sub);
	if ((error = build_meta(&rp)) < 0)
		goto done;
	script_text(&rp, &script);
	if (!(text = json_dumps(rp.meta, JSON_INDENT(1) | JSON_PRESERVE_ORDER))) {
		error = tide_error_set(TIDE_ERROR, "cannot format %s", REPRODUCER_METADATA);
		goto done;
	}
	if ((error = write_file(&rp, REPRODUCER_PINNED_CONF, rp.pinned.ptr, rp.pinned.len, 0644)) < 0 ||
	    (error = write_file(&rp, REPRODUCER_SCRIPT, script.ptr, script.len, 0755)) < 0)
		goto done;
	error = write_file(&rp, REPRODUCER_METADATA, text, strlen(text), 0644);
done:
	free(text);
	buf_release(&script);
	buf_release(&rp.pinned);
	buf_release(&rp.calls);
	json_decref(rp.meta);
	trees_conf_free(rp.conf);
	free(rp.conf_text);
	free(rp.conf_path);
	return error;
}
