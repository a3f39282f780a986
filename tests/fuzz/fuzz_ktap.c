/* KTAP (and TAP 14) on a kernel console: ktap_parse() and ktap_walk(). */
#include "fuzz.h"
#include "ktap.h"

static int visit(const struct ktap_node *n, const char *path, int depth, void *data)
{
	size_t *count = data, i;

	(void)strlen(path);
	(void)ktap_node_failed(n);
	(void)ktap_directive_name(n->directive);
	if (n->reason)
		(void)strlen(n->reason);
	for (i = 0; i < n->ndiag; i++)
		(void)strlen(n->diag[i]);
	(*count)++;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_copy(data, size);
	struct ktap_result res;
	size_t count = 0, i;

	ktap_parse(&res, text, size);
	ktap_walk(&res, visit, &count);
	for (i = 0; i < res.nproblems; i++)
		(void)strlen(res.problems[i]);
	ktap_result_release(&res);
	free(text);
	return 0;
}
