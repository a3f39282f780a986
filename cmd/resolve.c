/* PLACEHOLDER: replaced by the command's implementation. */
#include "cmd.h"

int cmd_resolve(struct cmd_ctx *ctx, int argc, char **argv)
{
	(void)ctx;
	(void)argc;
	(void)argv;
	cmd_error("'%s' is not implemented yet", argv[0]);
	return EXIT_FAILED;
}
