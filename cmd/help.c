/*
 * tide help [COMMAND]: the command list (as tide --help), or one
 * command's usage (as tide COMMAND --help).
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"

static const char usage[] = "usage: tide help [COMMAND]\n";

int cmd_help(struct cmd_ctx *ctx, int argc, char **argv)
{
	const struct cmd *cmd;
	char *help_argv[] = { NULL, "--help", NULL };

	if (argc > 2 || (argc == 2 && argv[1][0] == '-')) {
		if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
			fputs(usage, stdout);
			return EXIT_OK;
		}
		return cmd_usage(usage);
	}
	if (argc < 2) {
		cmd_print_help(stdout);
		return EXIT_OK;
	}
	if (!(cmd = cmd_find(argv[1]))) {
		cmd_error("'%s' is not a tide command; see 'tide help'", argv[1]);
		return EXIT_USAGE;
	}
	if (cmd->fn == cmd_help) {
		fputs(usage, stdout);
		return EXIT_OK;
	}
	/* --help needs nothing opened: every command prints its usage and returns. */
	help_argv[0] = (char *)cmd->name;
	return cmd->fn(ctx, 2, help_argv);
}
