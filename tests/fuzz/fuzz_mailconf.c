/* mail.conf, parsed by mailconf_parse() as `tide report --mail` reads it. */
#include "fuzz.h"
#include "mailconf.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	return 0;
}

/* What the parser promises about a file it accepted. */
static void check(const struct mailconf *c, const uint8_t *data, size_t size)
{
	if (memchr(data, '\0', size))
		FUZZ_FAIL("a mail.conf with a NUL byte was accepted");
	if (c->max_per_day < 0 || c->max_per_day > MAILCONF_MAX_PER_DAY_MAX)
		FUZZ_FAIL("max-per-day out of range was accepted");
	if (c->server.timeout < 0 || c->server.timeout > MAILCONF_TIMEOUT_MAX)
		FUZZ_FAIL("timeout out of range was accepted");
	if (c->server.url)
		(void)strlen(c->server.url);
	if (c->server.cainfo)
		(void)strlen(c->server.cainfo);
	if (c->from)
		(void)strlen(c->from);
	if (c->announce)
		(void)strlen(c->announce);
	if (c->credentials && c->credentials[0] != '/')
		FUZZ_FAIL("credentials= not made absolute");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_copy(data, size);
	struct mailconf c;
	const char *msg;

	mailconf_init(&c);
	if (mailconf_parse(&c, text, size, "/ws/mail.conf", "/ws") == 0) {
		check(&c, data, size);
	} else {
		/* Every error names the file and a line. */
		msg = tide_error_last();
		if (strncmp(msg, "/ws/mail.conf:", 14) || msg[14] < '1' || msg[14] > '9')
			FUZZ_FAIL("an error that does not name FILE:LINE");
	}
	mailconf_release(&c);
	tide_error_clear();
	free(text);
	return 0;
}
