#ifndef TIDE_KCIDB_H
#define TIDE_KCIDB_H

#include <jansson.h>

/*
 * A day as a KCIDB v5.3 document (man/tide-kcidb.1): the checkouts (the
 * day and one per tree), the build, the boot and its KTAP results as
 * tests, and an issue with an incident for each build error and failing
 * test.  Only what the day record holds is exported: a day without a
 * build has no builds, a build without a boot no tests.
 *
 * Ids are "<origin>:<tag>" for the day's checkout and built from it for
 * the rest; issue ids do not name the day, so the same breakage on two
 * days is one issue with two incidents.
 */
struct day;

struct kcidb_opts {
	const char *origin;	/* the CI system's name, ^[a-z0-9_]+$ */
	const char *url_base;	/* URL where DIR/days/ is published, or NULL */
	const char *project;	/* the checkout's tree_name; NULL: the day's "project" */
};

/* KCIDB's origin pattern: one or more of a-z, 0-9 and '_'. */
int kcidb_origin_valid(const char *origin);

/*
 * A test path component from a KTAP name: characters KCIDB refuses
 * (anything but a-z, A-Z, 0-9, '_' and '-') become '_'; an empty name
 * is "_".  The caller frees it.
 */
char *kcidb_path_component(const char *name, size_t len);

/* The document for day; TIDE_EINVAL for a bad origin or URL base. */
int kcidb_day(json_t **out, const struct day *day, const struct kcidb_opts *opts);

#endif
