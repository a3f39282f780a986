/*
 * Option tables (cmd/opt.h): parsing, usage lines and --help from one
 * description per option.  Parsing follows getopt_long's rules as the
 * commands used them: options and arguments in any order unless
 * OPT_IN_ORDER, "--" ends the options, --name=V or --name V, -xV or -x V,
 * a long name may be shortened to a unique prefix.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "opt.h"
#include "buf.h"

#define USAGE_WIDTH 80
#define HELP_COLUMN 24
#define MAX_DEPTH 4

static int is_option(const struct opt_spec *s)
{
	return s->type == OPT_SWITCH || s->type == OPT_VALUE;
}

int opt_usage_error(const char *cmd, const struct opt_spec *specs, const char *fmt, ...)
{
	struct buf msg = BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	buf_vprintf(&msg, fmt, ap);
	va_end(ap);
	cmd_error("%s", buf_cstr(&msg));
	buf_release(&msg);
	opt_usage_fprint(stderr, cmd, specs);
	return EXIT_USAGE;
}

/* The option --name (or a unique prefix of it); NULL with *ambiguous set or not. */
static const struct opt_spec *find_long(const struct opt_spec *specs, const char *name,
					size_t len, int *ambiguous)
{
	const struct opt_spec *s, *found = NULL;

	*ambiguous = 0;
	for (s = specs; s->type; s++)
		if (is_option(s) && s->name && strlen(s->name) == len && !strncmp(s->name, name, len))
			return s;
	for (s = specs; s->type; s++) {
		if (!is_option(s) || !s->name || strncmp(s->name, name, len))
			continue;
		/* One option in two forms is two entries of one name: not ambiguous. */
		if (found && strcmp(found->name, s->name))
			*ambiguous = 1;
		found = s;
	}
	return *ambiguous ? NULL : found;
}

static const struct opt_spec *find_short(const struct opt_spec *specs, char c)
{
	const struct opt_spec *s;

	for (s = specs; s->type; s++)
		if (is_option(s) && s->alias == c)
			return s;
	return NULL;
}

struct parser {
	const char *cmd;
	const struct opt_spec *specs;
	int argc, i;
	char **argv;
	int nargs;		/* positional arguments taken */
};

static int set_value(struct parser *p, const struct opt_spec *s, const char *value,
		     const char *spelled)
{
	if (s->type == OPT_SWITCH) {
		if (value)
			return opt_usage_error(p->cmd, p->specs, "option '%s' takes no value", spelled);
		if (s->value)
			*(int *)s->value = s->switch_value;
		return 0;
	}
	if (!value) {
		if (p->i + 1 >= p->argc)
			return opt_usage_error(p->cmd, p->specs, "option '%s' requires a value", spelled);
		value = p->argv[++p->i];
	}
	if (s->value)
		*(const char **)s->value = value;
	return 0;
}

static int parse_long(struct parser *p, const char *arg)
{
	const char *name = arg + 2, *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	const struct opt_spec *s;
	int ambiguous;

	if (!(s = find_long(p->specs, name, len, &ambiguous))) {
		if (!ambiguous && !strcmp(name, "help")) {
			opt_help_fprint(stdout, p->cmd, p->specs);
			return -1;
		}
		return opt_usage_error(p->cmd, p->specs, ambiguous ? "option '%.*s' is ambiguous" :
				       "unrecognized option '%.*s'", (int)(len + 2), arg);
	}
	return set_value(p, s, eq ? eq + 1 : NULL, arg);
}

/* -x, -xVALUE, -x VALUE and switches run together (-Rp1). */
static int parse_short(struct parser *p, const char *arg)
{
	const struct opt_spec *s;
	char spelled[3] = "-";
	int status;

	for (arg++; *arg; arg++) {
		spelled[1] = *arg;
		if (!(s = find_short(p->specs, *arg))) {
			if (*arg == 'h') {
				opt_help_fprint(stdout, p->cmd, p->specs);
				return -1;
			}
			return opt_usage_error(p->cmd, p->specs, "unrecognized option '%s'", spelled);
		}
		if (s->type == OPT_VALUE)
			return set_value(p, s, arg[1] ? arg + 1 : NULL, spelled);
		if ((status = set_value(p, s, NULL, spelled)) != 0)
			return status;
	}
	return 0;
}

/* A verb first, then the OPT_ARG entries in table order. */
static int take_arg(struct parser *p, const char *arg)
{
	const struct opt_spec *s;
	int n = 0;

	for (s = p->specs; s->type && p->nargs == 0; s++) {
		if (s->type == OPT_SUBCOMMAND && !strcmp(s->name, arg)) {
			*(int *)s->value = s->switch_value;
			p->nargs = -1;	/* the verb: its arguments follow */
			return 0;
		}
	}
	if (p->nargs < 0)
		p->nargs = 0;
	for (s = p->specs; s->type; s++) {
		if (s->type != OPT_ARG || n++ < p->nargs)
			continue;
		*(const char **)s->value = arg;
		p->nargs++;
		return 0;
	}
	return opt_usage_error(p->cmd, p->specs, "unexpected argument '%s'", arg);
}

static int check_mandatory(struct parser *p)
{
	const struct opt_spec *s;
	int n = 0;

	for (s = p->specs; s->type; s++)
		if (s->type == OPT_ARG && n++ >= (p->nargs > 0 ? p->nargs : 0) &&
		    (s->flags & OPT_MANDATORY))
			return opt_usage_error(p->cmd, p->specs, "missing %s", s->value_name);
	return 0;
}

int opt_parse(const char *cmd, const struct opt_spec *specs, int argc, char **argv,
	      unsigned flags)
{
	struct parser p = { cmd, specs, argc, 1, argv, 0 };
	int only_args = 0, status;

	for (; p.i < argc; p.i++) {
		const char *arg = argv[p.i];

		if (!only_args && !strcmp(arg, "--")) {
			only_args = 1;
			continue;
		}
		if (!only_args && arg[0] == '-' && arg[1]) {
			status = arg[1] == '-' ? parse_long(&p, arg) : parse_short(&p, arg);
		} else {
			if (flags & OPT_IN_ORDER)
				only_args = 1;
			status = take_arg(&p, arg);
		}
		if (status != 0)
			return status;
	}
	return check_mandatory(&p);
}

/* How the usage names an entry: --name, -x, --name VALUE, --name=VALUE, DATE, a verb. */
static void usage_term(struct buf *out, const struct opt_spec *s, unsigned flags)
{
	int is_short = (flags & OPT_SHORT) || !s->name;

	switch (s->type) {
	case OPT_SWITCH:
	case OPT_VALUE:
		if (is_short)
			buf_printf(out, "-%c", s->alias);
		else
			buf_printf(out, "--%s", s->name);
		if (s->type == OPT_VALUE)
			buf_printf(out, "%s%s", (flags & OPT_EQUALS) ? "=" : " ", s->value_name);
		break;
	case OPT_SUBCOMMAND:
		buf_puts(out, s->name);
		break;
	default:
		buf_puts(out, s->value_name);
		break;
	}
}

static const struct opt_spec *find_ref(const struct opt_spec *specs, const char *name)
{
	const struct opt_spec *s;

	for (s = specs; s->type; s++)
		if (s->type != OPT_REF && s->type != OPT_FORM && s->type != OPT_TEXT &&
		    ((s->name && !strcmp(s->name, name)) || (s->value_name && !strcmp(s->value_name, name))))
			return s;
	return NULL;
}

struct line {
	struct buf text;
	size_t start;		/* where the current line of text starts */
	size_t indent;
};

static void line_add(struct line *l, const struct buf *item)
{
	if (!item->len)
		return;
	if (l->text.len - l->start + 1 + item->len > USAGE_WIDTH &&
	    l->text.len - l->start > l->indent) {
		buf_putc(&l->text, '\n');
		l->start = l->text.len;
		buf_printf(&l->text, "%*s", (int)l->indent - 1, "");
	}
	buf_putc(&l->text, ' ');
	buf_put(&l->text, item->ptr, item->len);
}

static void close_from(struct buf *item, int *open, int depth)
{
	int d;

	for (d = MAX_DEPTH - 1; d >= depth; d--)
		if (open[d]) {
			buf_putc(item, ']');
			open[d] = 0;
		}
}

/* One synopsis line: the entries up to the next OPT_FORM; returns where it stopped. */
static const struct opt_spec *usage_form(struct line *l, const struct opt_spec *specs,
					 const struct opt_spec *s)
{
	struct buf item = BUF_INIT;
	int open[MAX_DEPTH] = { 0 };

	for (; s->type && s->type != OPT_FORM; s++) {
		const struct opt_spec *t = s->type == OPT_REF ? find_ref(specs, s->name) : s;
		unsigned f = s->flags;
		int depth = (f & OPT_NESTED2) ? 2 : (f & OPT_NESTED) ? 1 : 0;

		if (!t || (f & (OPT_HIDDEN | OPT_NOUSAGE)))
			continue;
		if (f & OPT_CHOICE) {
			close_from(&item, open, depth + 1);
			buf_puts(&item, " | ");
			usage_term(&item, t, f);
			continue;
		}
		close_from(&item, open, depth);
		if (depth == 0) {
			line_add(l, &item);
			buf_clear(&item);
		} else {
			buf_putc(&item, ' ');
		}
		if (!(f & OPT_BARE)) {
			buf_putc(&item, '[');
			open[depth] = 1;
		}
		usage_term(&item, t, f);
	}
	close_from(&item, open, 0);
	line_add(l, &item);
	buf_release(&item);
	return s;
}

void opt_usage_fprint(FILE *fp, const char *cmd, const struct opt_spec *specs)
{
	const struct opt_spec *s = specs;
	struct line l = { BUF_INIT, 0, 0 };
	int first = 1;

	do {
		if (!first)
			s++;	/* the OPT_FORM */
		l.start = l.text.len;
		buf_printf(&l.text, "%stide %s", first ? "usage: " : "   or: ", cmd);
		l.indent = l.text.len - l.start + 1;
		s = usage_form(&l, specs, s);
		buf_putc(&l.text, '\n');
		first = 0;
	} while (s->type == OPT_FORM);
	fputs(buf_cstr(&l.text), fp);
	buf_release(&l.text);
}

void opt_help_fprint(FILE *fp, const char *cmd, const struct opt_spec *specs)
{
	const struct opt_spec *s;
	struct buf term = BUF_INIT;

	opt_usage_fprint(fp, cmd, specs);
	fputc('\n', fp);
	for (s = specs; s->type; s++) {
		if (s->type == OPT_FORM || s->type == OPT_REF || s->type == OPT_TEXT ||
		    (s->flags & OPT_HIDDEN))
			continue;
		buf_clear(&term);
		if (is_option(s) && s->alias && s->name)
			buf_printf(&term, "-%c, ", s->alias);
		usage_term(&term, s, s->flags & OPT_EQUALS);
		if (s->help)
			fprintf(fp, "    %-*s %s\n", HELP_COLUMN - 1, buf_cstr(&term), s->help);
		else
			fprintf(fp, "    %s\n", buf_cstr(&term));
	}
	buf_release(&term);
}
