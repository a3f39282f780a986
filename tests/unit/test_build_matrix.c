#include <unistd.h>

#include "t.h"
#include "build_matrix.h"

/* Side by side, the budget is shared evenly, never below one job each. */
TEST(build_matrix__jobs_share_the_budget)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	CHECK_INT(build_matrix_jobs(0, 1), 0);	/* one at a time: build's own default */
	CHECK_INT(build_matrix_jobs(6, 1), 6);
	CHECK_INT(build_matrix_jobs(8, 2), 4);
	CHECK_INT(build_matrix_jobs(7, 2), 3);
	CHECK_INT(build_matrix_jobs(2, 4), 1);
	CHECK_INT(build_matrix_jobs(0, 2), cpus / 2 > 0 ? (int)(cpus / 2) : 1);
}

TESTS(build_matrix__jobs_share_the_budget)
