#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <git2.h>

#include "conf.h"
#include "error.h"
#include "text.h"
#include "util.h"

/*
 * A "#tide" line is kept until the whole file is read, so per-tree extras
 * may come before or after the tree's row.
 */
struct pending_extra {
	char **fields;
	size_t nfields;
	int line;
};

struct parser {
	struct trees_conf *conf;
	int build_order_line;	/* of "#tide build-order=", checked once all is read */
	const char *dir;	/* directory of the file, for relative URLs */
	size_t trees_alloc, configs_alloc;
	struct pending_extra *extras;
	size_t nextras, extras_alloc;
};

static void fields_free(char **fields, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(fields[i]);
	free(fields);
}

/* Split line at runs of the characters in seps. */
static char **split_fields(const char *line, const char *seps, size_t *nout)
{
	char **fields = NULL;
	size_t n = 0, alloc = 0;
	const char *p = line;

	while (*p) {
		size_t len;

		p += strspn(p, seps);
		if (!*p)
			break;
		len = strcspn(p, seps);
		array_grow(&fields, &alloc, n + 1, sizeof(*fields));
		fields[n++] = xstrndup(p, len);
		p += len;
	}
	*nout = n;
	return fields;
}

static int ref_is_valid(const char *prefix, const char *name)
{
	char *ref = xasprintf("%s%s", prefix, name);
	int valid = 0;

	if (git_reference_name_is_valid(&valid, ref) < 0)
		valid = 0;
	free(ref);
	return valid;
}

/*
 * A tree name becomes one component of refs/remotes/<name>/<branch>, a
 * file name under reports/ and resolve/, and a JSON string: printable
 * ASCII only, so no byte of it can trouble any of them.
 */
static int name_is_valid(const char *name)
{
	return ref_component_valid(name) && strcmp(name, "HEAD") &&
	       ref_is_valid("refs/remotes/", name);
}

/* git allows any bytes >= 0x80 in a branch; the record wants UTF-8. */
static int branch_is_valid(const char *branch)
{
	return branch[0] && branch[0] != '-' && utf8_valid(branch, strlen(branch)) &&
	       ref_is_valid("refs/heads/", branch);
}

/*
 * Relative local paths are taken relative to the file's directory, so a
 * trees.conf can name repositories next to it.  URLs ("scheme://") and
 * scp-like "host:path" are kept as written.
 */
static char *resolve_location(const char *dir, const char *url)
{
	const char *colon = strchr(url, ':'), *slash = strchr(url, '/');
	char *joined, *abs;

	if (strstr(url, "://") || url[0] == '/' || (colon && (!slash || colon < slash)))
		return xstrdup(url);
	joined = path_join(dir, url);
	abs = path_absolute(joined);
	free(joined);
	return abs;
}

/* Next/Trees starts with a title line ("...:"), column names and dashes. */
static int is_header(const char *text, char **f, size_t n)
{
	size_t i;

	if (str_ends_with(text, ":"))
		return 1;
	if (n >= 2 && !strcmp(f[0], "Name") && !strcmp(f[1], "Type"))
		return 1;
	for (i = 0; i < n; i++)
		if (strspn(f[i], "-") != strlen(f[i]))
			return 0;
	return n > 0;
}

static int parse_type(enum tree_type *out, const char *s)
{
	if (!strcmp(s, "git"))
		*out = TREE_GIT;
	else if (!strcmp(s, "quilt"))
		*out = TREE_QUILT;
	else if (!strcmp(s, "mmotm"))
		*out = TREE_MMOTM;
	else
		return -1;
	return 0;
}

static int conf_err(struct parser *p, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int conf_err(struct parser *p, int line, const char *fmt, ...)
{
	struct buf b = BUF_INIT;
	va_list ap;
	int error;

	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	error = tide_error_set(TIDE_EINVAL, "%s:%d: %s", p->conf->path, line, b.ptr);
	buf_release(&b);
	return error;
}

/* "FILE:LINE: <before>'name'<after>", the name's bytes shown safely (\\xNN): it may be the bad part. */
static int conf_err_name(struct parser *p, int line, const char *before, const char *name,
			 const char *after)
{
	struct buf b = BUF_INIT;
	int error;

	text_escape(&b, name);
	error = conf_err(p, line, "%s'%s'%s", before, buf_cstr(&b), after);
	buf_release(&b);
	return error;
}

/* Split "URL#branch" at the last '#'. */
static int split_branch(struct parser *p, struct tree *t, const char *url)
{
	const char *hash = strrchr(url, '#');

	t->url = hash ? xstrndup(url, (size_t)(hash - url)) : xstrdup(url);
	t->branch = xstrdup(hash ? hash + 1 : "master");
	if (!t->url[0])
		return conf_err(p, t->line, "tree '%s' has no URL", t->name);
	if (!branch_is_valid(t->branch))
		return conf_err_name(p, t->line, "bad branch name ", t->branch, "");
	return 0;
}

static int add_tree(struct parser *p, char **f, size_t n, int line)
{
	struct trees_conf *conf = p->conf;
	struct tree *t;
	enum tree_type type;

	if (!name_is_valid(f[0]))
		return conf_err_name(p, line, "", f[0], " is not a valid tree name (printable "
				     "ASCII, one git reference component)");
	/* Its "#tide" lines would be taken for configurations. */
	if (!strcmp(f[0], "config"))
		return conf_err(p, line, "%s", "'config' is reserved, not a tree name");
	if (n < 2)
		return conf_err(p, line, "tree '%s' has no type and no URL", f[0]);
	if (parse_type(&type, f[1]) < 0)
		return conf_err(p, line, "unknown tree type '%s' (git, quilt or mmotm)", f[1]);
	if (n < 3)
		return conf_err(p, line, "tree '%s' has no URL", f[0]);
	if (n > 3)
		return conf_err(p, line, "unexpected field '%s' after the URL", f[3]);
	if (trees_conf_find(conf, f[0]))
		return conf_err(p, line, "duplicate tree name '%s'", f[0]);
	array_grow(&conf->trees, &p->trees_alloc, conf->ntrees + 1, sizeof(*conf->trees));
	t = &conf->trees[conf->ntrees++];
	t->name = xstrdup(f[0]);
	t->type = type;
	t->line = line;
	if (type == TREE_GIT) {
		int error = split_branch(p, t, f[2]);
		if (error)
			return error;
	} else {
		t->url = xstrdup(f[2]);
	}
	t->location = resolve_location(p->dir, t->url);
	return 0;
}

static int set_base(struct parser *p, char **f, size_t n, int line)
{
	struct trees_conf *conf = p->conf;
	const char *hash;

	if (conf->base_url)
		return conf_err(p, line, "%s", "base given twice");
	if (n != 3 || !(hash = strrchr(f[2], '#')) || hash == f[2])
		return conf_err(p, line, "%s", "malformed base: expected '#tide<TAB>base<TAB>URL#TAG'");
	if (!hash[1] || !ref_is_valid("refs/tags/", hash + 1))
		return conf_err(p, line, "malformed base: bad tag '%s'", hash + 1);
	conf->base_url = xstrndup(f[2], (size_t)(hash - f[2]));
	conf->base_tag = xstrdup(hash + 1);
	conf->base_location = resolve_location(p->dir, conf->base_url);
	return 0;
}

/* A whole number from 1 to max, nothing else: -1 when s is not one. */
static long parse_bounded(const char *s, unsigned long max)
{
	char *end;
	unsigned long v;

	/* strtoul alone takes " 5", "-1" (as a huge number) and "5x". */
	if (!isdigit((unsigned char)s[0]))
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v < 1 || v > max)
		return -1;
	return (long)v;
}

long conf_parse_seconds(const char *s)
{
	return parse_bounded(s, (unsigned long)CONF_MAX_SECONDS);
}

long conf_parse_count(const char *s)
{
	return parse_bounded(s, (unsigned long)CONF_MAX_COUNT);
}

long long conf_parse_size(const char *s)
{
	char *end;
	unsigned long long v;
	int shift = 0;

	if (!isdigit((unsigned char)s[0]))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	if (*end == 'K' || *end == 'k')
		shift = 10, end++;
	else if (*end == 'M' || *end == 'm')
		shift = 20, end++;
	else if (*end == 'G' || *end == 'g')
		shift = 30, end++;
	/* Compare before shifting, so a huge count cannot wrap. */
	if (*end || v < 1 || v > (unsigned long long)CONF_MAX_SIZE >> shift)
		return -1;
	return (long long)(v << shift);
}

/*
 * A "#tide<TAB>KEY=VALUE" line of the whole file: nothing after it, and
 * given once (given: an earlier line set it).
 */
static int global_line(struct parser *p, char **f, size_t n, int line, int given)
{
	const char *eq = strchr(f[1], '=');

	if (n != 2)
		return conf_err(p, line, "unexpected field '%s' after '%s'", f[2], f[1]);
	if (given)
		return conf_err(p, line, "%.*s given twice", (int)(eq - f[1]), f[1]);
	return 0;
}

static int set_fetch_deadline(struct parser *p, char **f, size_t n, int line)
{
	const char *v = f[1] + strlen("fetch-deadline=");
	int error;

	if ((error = global_line(p, f, n, line, p->conf->fetch_deadline != 0)) < 0)
		return error;
	if ((p->conf->fetch_deadline = conf_parse_seconds(v)) < 0)
		return conf_err(p, line, "bad fetch-deadline '%s' (whole seconds, 1 to %ld)",
				v, CONF_MAX_SECONDS);
	return 0;
}

/* "#tide merge-timeout=SECONDS": each tree's time in the merge stage, unless its own says. */
static int set_merge_timeout(struct parser *p, char **f, size_t n, int line)
{
	const char *v = f[1] + strlen("merge-timeout=");
	int error;

	if ((error = global_line(p, f, n, line, p->conf->merge_timeout != 0)) < 0)
		return error;
	if ((p->conf->merge_timeout = conf_parse_seconds(v)) < 0)
		return conf_err(p, line, "bad merge-timeout '%s' (whole seconds, 1 to %ld)",
				v, CONF_MAX_SECONDS);
	return 0;
}

/* "#tide build-parallel=N" and "#tide build-jobs=N": a whole number, 1 to max. */
static int set_build_count(struct parser *p, char **f, size_t n, int line, int *out, int max)
{
	const char *eq = strchr(f[1], '=');
	char *key, *end;
	long v;
	int error;

	if ((error = global_line(p, f, n, line, *out != 0)) < 0)
		return error;
	key = xstrndup(f[1], (size_t)(eq - f[1]));
	errno = 0;
	v = strtol(eq + 1, &end, 10);
	if (errno || end == eq + 1 || *end || eq[1] == '+' || eq[1] == '-' || v < 1 || v > max)
		error = conf_err(p, line, "bad %s '%s' (a whole number, 1 to %d)", key, eq + 1, max);
	else
		*out = (int)v;
	free(key);
	return error;
}

/* "#tide build-order=NAME[,NAME...]": the names are checked when all configurations are read. */
static int set_build_order(struct parser *p, char **f, size_t n, int line)
{
	const char *v = f[1] + strlen("build-order=");
	int error;

	if ((error = global_line(p, f, n, line, p->conf->build_order != NULL)) < 0)
		return error;
	p->conf->build_order = xstrdup(v);
	p->build_order_line = line;
	return 0;
}

/* Each build-order name a declared configuration, named once. */
static int check_build_order(struct parser *p)
{
	const char *list = p->conf->build_order, *q = list;
	int error = 0;

	if (!list)
		return 0;
	for (;;) {
		size_t n = strcspn(q, ",");
		char *name = xstrndup(q, n);
		const char *r;

		if (!n)
			error = conf_err(p, p->build_order_line, "build-order: an empty name in '%s'",
					 list);
		else if (!trees_conf_find_config(p->conf, name))
			error = conf_err_name(p, p->build_order_line, "build-order: ", name,
					      " is not a declared configuration");
		for (r = list; !error && r < q; r += strcspn(r, ",") + 1)
			if (strcspn(r, ",") == n && !strncmp(r, name, n))
				error = conf_err(p, p->build_order_line,
						 "build-order: '%s' named twice", name);
		free(name);
		if (error || !q[n])
			return error;
		q += n + 1;
	}
}

/* A name for "Today's NAME merge of ...": printable ASCII, no '/' or quote. */
static int project_name_valid(const char *v)
{
	const char *p;

	if (!*v || strlen(v) > 64)
		return 0;
	for (p = v; *p; p++)
		if (*p <= ' ' || *p > '~' || *p == '"' || *p == '/' || *p == '\\')
			return 0;
	return 1;
}

static int set_project(struct parser *p, char **f, size_t n, int line)
{
	const char *v = f[1] + strlen("project=");
	int error;

	if ((error = global_line(p, f, n, line, p->conf->project != NULL)) < 0)
		return error;
	if (!project_name_valid(v))
		return conf_err(p, line, "bad project name '%s' (1 to 64 printable characters, "
				"no space, '/', '\\' or '\"')", v);
	p->conf->project = xstrdup(v);
	return 0;
}

/* "#tide<TAB>config<TAB>NAME<TAB>key=value...": one line per configuration. */
static int add_config(struct parser *p, char **f, size_t n, int line)
{
	struct trees_conf *conf = p->conf;
	struct build_config *c;
	char *why = NULL;
	int error = 0;

	if (n < 3)
		return conf_err(p, line, "%s", "'#tide<TAB>config' line needs a configuration name");
	if (!name_is_valid(f[2]))
		return conf_err_name(p, line, "", f[2], " is not a valid configuration name "
				     "(printable ASCII, one git reference component)");
	if (trees_conf_find_config(conf, f[2]))
		return conf_err(p, line, "duplicate configuration name '%s'", f[2]);
	array_grow(&conf->configs, &p->configs_alloc, conf->nconfigs + 1, sizeof(*conf->configs));
	c = &conf->configs[conf->nconfigs++];
	memset(c, 0, sizeof(*c));
	c->name = xstrdup(f[2]);
	c->line = line;
	if (build_config_parse(c, p->dir, f + 3, n - 3, &why) < 0)
		error = conf_err(p, line, "config '%s': %s", c->name, why);
	free(why);
	return error;
}

/* "#tide<TAB>..." lines: the base and global options now, per-tree extras at the end. */
static int parse_tide_line(struct parser *p, const char *text, int line)
{
	struct pending_extra *e;
	size_t n;
	char **f = split_fields(text, "\t", &n);
	int error = 0;

	if (n < 2) {
		error = conf_err(p, line, "%s", "'#tide' line needs a tree name, 'base' or 'config'");
	} else if (!strcmp(f[1], "base")) {
		error = set_base(p, f, n, line);
	} else if (!strcmp(f[1], "config")) {
		error = add_config(p, f, n, line);
	} else if (str_starts_with(f[1], "fetch-deadline=")) {
		error = set_fetch_deadline(p, f, n, line);
	} else if (str_starts_with(f[1], "project=")) {
		error = set_project(p, f, n, line);
	} else if (str_starts_with(f[1], "build-order=")) {
		error = set_build_order(p, f, n, line);
	} else if (str_starts_with(f[1], "build-parallel=")) {
		error = set_build_count(p, f, n, line, &p->conf->build_parallel, 64);
	} else if (str_starts_with(f[1], "build-jobs=")) {
		error = set_build_count(p, f, n, line, &p->conf->build_jobs, 1024);
	} else if (str_starts_with(f[1], "merge-timeout=")) {
		error = set_merge_timeout(p, f, n, line);
	} else if (str_starts_with(f[1], "max-tree-depth=")) {
		error = set_build_count(p, f, n, line, &p->conf->max_tree_depth, 65536);
	} else {
		array_grow(&p->extras, &p->extras_alloc, p->nextras + 1, sizeof(*p->extras));
		e = &p->extras[p->nextras++];
		e->fields = f;
		e->nfields = n;
		e->line = line;
		return 0;
	}
	fields_free(f, n);
	return error;
}

static void tree_add_opt(struct tree *t, const char *field)
{
	const char *eq = strchr(field, '=');
	struct tree_opt *o;

	t->opts = xrealloc(t->opts, (t->nopts + 1) * sizeof(*t->opts));
	o = &t->opts[t->nopts++];
	o->key = eq ? xstrndup(field, (size_t)(eq - field)) : xstrdup(field);
	o->value = xstrdup(eq ? eq + 1 : "");
}

/* Options tide acts on are checked here, so a typo is not a silent default. */
static int check_opt(struct parser *p, int line, const struct tree *t, const struct tree_opt *o)
{
	if ((!strcmp(o->key, "timeout") || !strcmp(o->key, "stall") ||
	     !strcmp(o->key, "merge-timeout") || !strcmp(o->key, "series-timeout")) &&
	    conf_parse_seconds(o->value) < 0)
		return conf_err(p, line, "tree '%s': bad %s '%s' (whole seconds, 1 to %ld)",
				t->name, o->key, o->value, CONF_MAX_SECONDS);
	if (!strcmp(o->key, "max-patches") && conf_parse_count(o->value) < 0)
		return conf_err(p, line, "tree '%s': bad max-patches '%s' (1 to %ld)", t->name,
				o->value, CONF_MAX_COUNT);
	if (!strcmp(o->key, "max-size") && conf_parse_size(o->value) < 0)
		return conf_err(p, line, "tree '%s': bad max-size '%s' "
				"(bytes, or a number with K, M or G, up to 64G)", t->name, o->value);
	if (!strcmp(o->key, "fuzz") &&
	    !(*o->value && strlen(o->value) <= 2 && strspn(o->value, "0123456789") == strlen(o->value) &&
	      atoi(o->value) <= 10))
		return conf_err(p, line, "tree '%s': bad fuzz '%s' (0 to 10 lines)",
				t->name, o->value);
	return 0;
}

static int apply_extra(struct parser *p, const struct pending_extra *e)
{
	struct tree *t = (struct tree *)trees_conf_find(p->conf, e->fields[1]);
	size_t i;

	if (!t)
		return conf_err(p, e->line, "'#tide' line for unknown tree '%s'", e->fields[1]);
	for (i = 2; i < e->nfields; i++) {
		const char *f = e->fields[i];

		if (f[0] == '=')
			return conf_err(p, e->line, "malformed option '%s'", f);
		if (str_starts_with(f, "contact=")) {
			free(t->contact);
			t->contact = xstrdup(f + strlen("contact="));
		} else {
			tree_add_opt(t, f);
			if (check_opt(p, e->line, t, &t->opts[t->nopts - 1]) < 0)
				return TIDE_EINVAL;
		}
	}
	return 0;
}

static int parse_line(struct parser *p, char *text, int line)
{
	char **f;
	size_t n;
	int error = 0;

	str_rtrim(text);
	if (str_starts_with(text, "#tide\t") || !strcmp(text, "#tide"))
		return parse_tide_line(p, text, line);
	/* A plain Next/Trees reader would skip it too: say so rather than ignore it. */
	if (str_starts_with(text, "#tide "))
		return conf_err(p, line, "%s", "'#tide' fields must be separated by tabs");
	if (text[0] == '#' || text[strspn(text, " \t")] == '\0')
		return 0;
	/* Next/Trees separates fields by tabs; a line without tabs may use spaces. */
	f = split_fields(text, strchr(text, '\t') ? "\t" : " ", &n);
	if (!(p->conf->ntrees == 0 && is_header(text, f, n)))
		error = add_tree(p, f, n, line);
	fields_free(f, n);
	return error;
}

static char *dir_of(const char *path)
{
	char *abs = path_absolute(path);
	char *slash = strrchr(abs, '/');

	if (slash == abs)
		slash[1] = '\0';
	else
		*slash = '\0';
	return abs;
}

/* A NUL byte would end the text early and drop the trees after it. */
static int check_nul(struct parser *p, const char *text, size_t len)
{
	const char *nul = memchr(text, '\0', len), *q;
	int line = 1;

	if (!nul)
		return 0;
	for (q = text; q < nul; q++)
		line += *q == '\n';
	return conf_err(p, line, "%s", "NUL byte");
}

static int parse_text(struct parser *p, const char *text, size_t len)
{
	char *copy, *line, *save = NULL;
	int lineno = 0, error;
	size_t i;

	if ((error = check_nul(p, text, len)) < 0)
		return error;
	copy = xstrndup(text, len);
	/* strtok_r would skip empty lines and lose the line numbers. */
	for (line = copy; line && !error; line = save) {
		save = strchr(line, '\n');
		if (save)
			*save++ = '\0';
		lineno++;
		error = parse_line(p, line, lineno);
	}
	for (i = 0; i < p->nextras && !error; i++)
		error = apply_extra(p, &p->extras[i]);
	if (!error)
		error = check_build_order(p);
	if (!error && !p->conf->nconfigs) {
		p->conf->configs = xcalloc(1, sizeof(*p->conf->configs));
		p->conf->nconfigs = 1;
		build_config_default(&p->conf->configs[0]);
	}
	free(copy);
	return error;
}

int trees_conf_parse(struct trees_conf **out, const char *path, const char *text)
{
	return trees_conf_parse_buf(out, path, text, strlen(text));
}

int trees_conf_parse_buf(struct trees_conf **out, const char *path, const char *text,
			 size_t len)
{
	struct parser p = { 0 };
	size_t i;
	int error;

	p.conf = xcalloc(1, sizeof(*p.conf));
	p.conf->path = xstrdup(path);
	p.dir = dir_of(path);
	error = parse_text(&p, text, len);
	for (i = 0; i < p.nextras; i++)
		fields_free(p.extras[i].fields, p.extras[i].nfields);
	free(p.extras);
	free((char *)p.dir);
	if (error) {
		trees_conf_free(p.conf);
		return error;
	}
	*out = p.conf;
	return 0;
}

int trees_conf_load(struct trees_conf **out, const char *path)
{
	struct buf b = BUF_INIT;
	int error;

	if ((error = file_read(&b, path)) < 0) {
		buf_release(&b);
		return error == TIDE_ENOTFOUND ?
			tide_error_set(TIDE_EINVAL, "cannot read trees.conf '%s': no such file", path) :
			error;
	}
	error = trees_conf_parse_buf(out, path, buf_cstr(&b), b.len);
	buf_release(&b);
	return error;
}

void trees_conf_free(struct trees_conf *conf)
{
	size_t i, j;

	if (!conf)
		return;
	for (i = 0; i < conf->ntrees; i++) {
		struct tree *t = &conf->trees[i];

		free(t->name);
		free(t->url);
		free(t->location);
		free(t->branch);
		free(t->contact);
		for (j = 0; j < t->nopts; j++) {
			free(t->opts[j].key);
			free(t->opts[j].value);
		}
		free(t->opts);
	}
	free(conf->trees);
	for (i = 0; i < conf->nconfigs; i++)
		build_config_release(&conf->configs[i]);
	free(conf->configs);
	free(conf->path);
	free(conf->base_url);
	free(conf->base_location);
	free(conf->base_tag);
	free(conf->project);
	free(conf->build_order);
	free(conf);
}

const struct tree *trees_conf_find(const struct trees_conf *conf, const char *name)
{
	size_t i;

	for (i = 0; i < conf->ntrees; i++)
		if (!strcmp(conf->trees[i].name, name))
			return &conf->trees[i];
	return NULL;
}

const struct build_config *trees_conf_find_config(const struct trees_conf *conf,
						  const char *name)
{
	size_t i;

	for (i = 0; i < conf->nconfigs; i++)
		if (!strcmp(conf->configs[i].name, name))
			return &conf->configs[i];
	return NULL;
}

/* Is name one of list's comma-separated names? */
static int list_has(const char *list, const char *name)
{
	size_t len = strlen(name);
	const char *p = list;

	while (*p) {
		size_t n = strcspn(p, ",");

		if (n == len && !strncmp(p, name, len))
			return 1;
		p += n + (p[n] == ',');
	}
	return 0;
}

size_t *trees_conf_build_order(const struct trees_conf *conf)
{
	size_t *order = xcalloc(conf->nconfigs ? conf->nconfigs : 1, sizeof(*order));
	char *taken = xcalloc(conf->nconfigs ? conf->nconfigs : 1, 1);
	const char *q = conf->build_order;
	size_t i, n = 0;

	while (q && *q) {
		size_t len = strcspn(q, ",");

		for (i = 0; i < conf->nconfigs; i++)
			if (!taken[i] && strlen(conf->configs[i].name) == len &&
			    !strncmp(conf->configs[i].name, q, len)) {
				taken[i] = 1;
				order[n++] = i;
			}
		q += len + (q[len] == ',');
	}
	for (i = 0; i < conf->nconfigs; i++)
		if (!taken[i])
			order[n++] = i;
	free(taken);
	return order;
}

char *trees_conf_config_names(const struct trees_conf *conf)
{
	struct buf names = BUF_INIT;
	size_t i;

	for (i = 0; i < conf->nconfigs; i++)
		buf_printf(&names, "%s%s", i ? ", " : "", conf->configs[i].name);
	return buf_detach(&names);
}

int trees_conf_select_configs(struct trees_conf *conf, const char *list)
{
	char *names = NULL;
	const char *p = list;
	size_t i, kept = 0;
	int error = 0;

	for (;;) {
		size_t n = strcspn(p, ",");
		char *name = xstrndup(p, n);

		if (!n) {
			error = tide_error_set(TIDE_EINVAL, "an empty configuration name in '%s'", list);
		} else if (!trees_conf_find_config(conf, name)) {
			names = trees_conf_config_names(conf);
			error = tide_error_set(TIDE_EINVAL, "no configuration '%s' in %s (it declares: %s)",
					       name, conf->path, names);
		}
		free(name);
		if (error || !p[n])
			break;
		p += n + 1;
	}
	free(names);
	if (error)
		return error;
	for (i = 0; i < conf->nconfigs; i++) {
		if (list_has(list, conf->configs[i].name))
			conf->configs[kept++] = conf->configs[i];
		else
			build_config_release(&conf->configs[i]);
	}
	conf->nconfigs = kept;
	return 0;
}

const char *tree_opt(const struct tree *t, const char *key)
{
	size_t i;

	for (i = 0; i < t->nopts; i++)
		if (!strcmp(t->opts[i].key, key))
			return t->opts[i].value;
	return NULL;
}

long tree_opt_seconds(const struct tree *t, const char *key, long dflt)
{
	const char *v = tree_opt(t, key);
	long n = v ? conf_parse_seconds(v) : -1;

	return n > 0 ? n : dflt;
}

long tree_opt_count(const struct tree *t, const char *key, long dflt)
{
	const char *v = tree_opt(t, key);
	long n = v ? conf_parse_count(v) : -1;

	return n > 0 ? n : dflt;
}

long long tree_opt_size(const struct tree *t, const char *key, long long dflt)
{
	const char *v = tree_opt(t, key);
	long long n = v ? conf_parse_size(v) : -1;

	return n > 0 ? n : dflt;
}

const char *tree_type_name(enum tree_type type)
{
	switch (type) {
	case TREE_GIT:
		return "git";
	case TREE_QUILT:
		return "quilt";
	case TREE_MMOTM:
		return "mmotm";
	}
	return "unknown";
}
