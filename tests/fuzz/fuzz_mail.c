/*
 * What src/mail.c reads: addresses ("Name <addr>"), the SMTP URL check,
 * a message assembled from the input's lines, and the credentials file.
 */
#include "buf.h"
#include "fuzz.h"
#include "fuzz_memfd.h"
#include "mail.h"

/* Line n of text (0-based), or "" (a new string). */
static char *line_of(const char *text, int n)
{
	const char *nl;

	while (n-- > 0 && (nl = strchr(text, '\n')))
		text = nl + 1;
	if (n >= 0)
		return xstrdup("");
	nl = strchr(text, '\n');
	return nl ? xstrndup(text, (size_t)(nl - text)) : xstrdup(text);
}

/* What goes to SMTP DATA: CRLF line ends only, no line over 998 octets. */
static void check_wire(const struct buf *out)
{
	size_t i, col = 0;

	for (i = 0; i < out->len; i++) {
		if (out->ptr[i] == '\r') {
			if (i + 1 >= out->len || out->ptr[i + 1] != '\n')
				abort();
			col = 0;
			i++;
		} else if (out->ptr[i] == '\n' || ++col > 998) {
			abort();
		}
	}
}

static void format(const char *text)
{
	struct mail_msg m = { 0 };
	struct buf out = BUF_INIT;
	char *addr, *to = line_of(text, 1);

	m.from = line_of(text, 0);
	mail_add_rcpt(&m.to, &m.nto, to);
	mail_add_rcpt(&m.to, &m.nto, to);
	mail_add_rcpt(&m.cc, &m.ncc, m.from);
	m.subject = line_of(text, 2);
	m.message_id = xstrdup("<fuzz@tide>");
	m.body = xstrdup(text);
	m.date = 0;
	mail_format(&out, &m, 0);
	buf_clear(&out);
	mail_format(&out, &m, 1);
	check_wire(&out);
	addr = mail_address(m.from);
	free(addr);
	buf_release(&out);
	free(to);
	mail_msg_release(&m);
}

static void server(const uint8_t *data, size_t size, const char *text)
{
	struct mail_server s = { 0 };

	s.url = line_of(text, 0);
	(void)mail_server_check(&s);
	(void)mail_credentials_load(&s, fuzz_memfd_put(data, size, 0600));
	mail_server_release(&s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_cstr(data, size);

	format(text);
	server(data, size, text);
	tide_error_clear();
	free(text);
	return 0;
}
