/* PLACEHOLDER: the workspace owner replaces this with the real opener. */
#include "cmd.h"

int cmd_open(struct cmd_ctx *ctx, unsigned flags)
{
	(void)ctx;
	if (flags) {
		cmd_error("workspaces are not implemented yet");
		return EXIT_FAILED;
	}
	return 0;
}

void cmd_close(struct cmd_ctx *ctx)
{
	(void)ctx;
}
