/*
 * tide help [COMMAND]: the command list (as tide --help), or one
 * command's usage (as tide COMMAND --help).
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "opt.h"

int cmd_help(struct cmd_ctx *ctx, int argc, char **argv)
{
	const struct cmd *cmd;
	char *help_argv[] = { NULL, "--help", NULL };
	const char *name = NULL;
	const struct opt_spec specs[] = {
		{ OPT_ARG, "command", 0, &name, 0, 0, "COMMAND", "show this command's usage and options" },
		{ 0 },
	};
	int status;

	if ((status = opt_parse("help", specs, argc, argv, 0)) != 0)
		return status < 0 ? EXIT_OK : status;
	if (!name) {
		cmd_print_help(stdout);
		return EXIT_OK;
	}
	if (!(cmd = cmd_find(name))) {
		cmd_error("'%s' is not a tide command; see 'tide help'", name);
		return EXIT_USAGE;
	}
	if (cmd->fn == cmd_help) {
		opt_help_fprint(stdout, "help", specs);
		return EXIT_OK;
	}
	/* --help needs nothing opened: every command prints its usage and returns. */
	help_argv[0] = (char *)cmd->name;
	return cmd->fn(ctx, 2, help_argv);
}
