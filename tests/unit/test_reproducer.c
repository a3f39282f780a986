#include <stdlib.h>
#include <string.h>

#include "t.h"
#include "buf.h"
#include "reproducer.h"

TEST(reproducer__sh_quote_keeps_every_byte_literal)
{
	struct buf b = BUF_INIT;

	reproducer_sh_quote(&b, "it's $(x) `y` \\\"z\"");
	CHECK_STR(buf_cstr(&b), "'it'\\''s $(x) `y` \\\"z\"'");
	buf_clear(&b);
	reproducer_sh_quote(&b, "");
	CHECK_STR(buf_cstr(&b), "''");
	buf_release(&b);
}

TESTS(reproducer__sh_quote_keeps_every_byte_literal)
