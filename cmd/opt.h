#ifndef TIDE_CMD_OPT_H
#define TIDE_CMD_OPT_H

#include <stdio.h>

/*
 * One option table per command (after libgit2's src/cli/opt.h,
 * cli_opt_spec): the table drives the parsing of argv, the usage lines
 * (the man page's SYNOPSIS, checked by tests/cmd/t0010) and --help.
 *
 *	static const struct opt_spec opts[] = {
 *		{ OPT_VALUE, "date", 0, &date, 0, 0, "YYYY-MM-DD", "the day to integrate" },
 *		{ OPT_SWITCH, "no-build", 0, &no_build, 1, 0, NULL, "merge only" },
 *		{ 0 }
 *	};
 *	if ((status = opt_parse("run", opts, argc, argv, 0)) != 0)
 *		return status < 0 ? EXIT_OK : status;
 *
 * An option that means one thing in one form and another in the next
 * (tide boot's --config NAME and --kernel's --config FILE) is one entry
 * per form, of the same name and value: the first is parsed, each is
 * in its form's usage line and in --help.
 */

enum opt_type {
	OPT_END = 0,
	OPT_SWITCH,	/* --name or -x: *(int *)value = switch_value */
	OPT_VALUE,	/* --name V, --name=V, -x V, -xV: *(const char **)value = V */
	OPT_ARG,	/* the next positional argument: *(const char **)value */
	OPT_SUBCOMMAND,	/* a verb as the first positional: *(int *)value = switch_value */
	OPT_FORM,	/* usage only: the command's next synopsis line */
	OPT_REF,	/* usage only: the entry called name, again in a later form */
	OPT_TEXT,	/* usage only: value_name as it is ("options") */
};

enum {
	OPT_BARE = 1 << 0,	/* usage: no brackets, the form needs it */
	OPT_CHOICE = 1 << 1,	/* usage: an alternative to the entry before, "[a | b]" */
	OPT_NESTED = 1 << 2,	/* usage: inside the bracket of the entry before, "[a [b]]" */
	OPT_HIDDEN = 1 << 3,	/* neither in the usage nor in --help (an old spelling) */
	OPT_NOUSAGE = 1 << 4,	/* in --help, not in the usage lines */
	OPT_SHORT = 1 << 5,	/* usage says -x, not --name */
	OPT_EQUALS = 1 << 6,	/* usage says --name=VALUE */
	OPT_MANDATORY = 1 << 7,	/* parse: an OPT_ARG that must be given */
	OPT_NESTED2 = 1 << 8,	/* usage: one bracket deeper than OPT_NESTED */
};

/* opt_parse() flags */
enum {
	OPT_IN_ORDER = 1 << 0,	/* options end at the first positional argument (getopt's "+") */
};

struct opt_spec {
	enum opt_type type;
	const char *name;	/* long name without "--"; an argument's name in messages */
	char alias;		/* short option letter, or 0 */
	void *value;
	int switch_value;
	unsigned flags;
	const char *value_name;	/* "N", "FILE"; an argument's "DATE" */
	const char *help;
};

/*
 * Parse argv[1..argc) with specs.  Returns 0; -1 after printing --help
 * (-h) on stdout; EXIT_USAGE after saying on stderr what was wrong (the
 * option or argument named) and the usage.
 */
int opt_parse(const char *cmd, const struct opt_spec *specs, int argc, char **argv,
	      unsigned flags);

/* The usage lines ("usage: tide CMD ...", "   or: tide CMD ...") to fp. */
void opt_usage_fprint(FILE *fp, const char *cmd, const struct opt_spec *specs);
/* The usage lines, then one line per option and argument with its help. */
void opt_help_fprint(FILE *fp, const char *cmd, const struct opt_spec *specs);
/* A usage error: "tide: <msg>" and the usage on stderr; returns EXIT_USAGE. */
int opt_usage_error(const char *cmd, const struct opt_spec *specs, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
