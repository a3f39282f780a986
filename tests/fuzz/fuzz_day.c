/*
 * day.json, loaded the way day_load() does (jansson, then day_from_json())
 * from memory, and written back with day_to_json().
 */
#include <jansson.h>

#include "day.h"
#include "fuzz.h"

static void use(const struct day *day)
{
	size_t i;

	for (i = 0; i < day->ntrees; i++)
		if (day->trees[i].name && day_find_tree(day, day->trees[i].name) == NULL)
			FUZZ_FAIL("day_find_tree() does not find a tree by its name");
	(void)day_find_tree(day, "gpio");
	(void)day_date_is_valid(day->date);
	/* The typed stage records, as tide show prints them. */
	free(day_build_text(day->build));
	free(day_boot_text(day->boot, day->nconfigs && day->build ? day->build->config : NULL));
	free(day_bisect_text(day->bisect));
	for (i = 0; i < day->ntrees; i++)
		free(day_build_text(day->trees[i].build));
	for (i = 0; i < day->nconfigs; i++) {
		free(day_build_text(day->configs[i].build));
		free(day_boot_text(day->configs[i].boot, day->configs[i].name));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_error_t jerr;
	json_t *json = json_loadb((const char *)data, size, 0, &jerr), *back = NULL;
	struct day *day = NULL;
	char *text;

	if (json && day_from_json(&day, json, "fuzz") == 0) {
		use(day);
		if (day_to_json(&back, day) == 0) {
			struct day *again = NULL;

			/* What tide writes it must read back. */
			if (day_from_json(&again, back, "fuzz (written back)") < 0)
				FUZZ_FAIL("day_to_json() wrote a record day_from_json() refuses");
			if (again->ntrees != day->ntrees)
				FUZZ_FAIL("a written-back record lost trees");
			day_free(again);
			text = json_dumps(back, JSON_SORT_KEYS);
			free(text);
			json_decref(back);
		}
		day_free(day);
	}
	json_decref(json);
	tide_error_clear();
	return 0;
}
