/*
 * Suite "gpio": the GPIO character device, uAPI v2, against a gpio-sim
 * bank made through configfs.  The bank has named lines and a hog, so
 * line info, requests by name, outputs (checked through gpio-sim's sysfs
 * "value"), inputs (driven through "pull") and edge events are all seen
 * from both sides.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/gpio.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ktest.h"

#define SIM "/sys/kernel/config/gpio-sim/tide"
#define BANK SIM "/bank0"
#define NLINES 8
#define CONSUMER "tide-smoke"

static const char *const line_names[NLINES] = {
	"led0", "led1", "button0", "button1", "spare4", "hogged", NULL, "spare7",
};
#define HOG_LINE 5
#define HOG_NAME "tide-hog"

struct sim {
	char chip[64];		/* gpiochipN */
	char dev_name[64];	/* gpio-sim.N */
	int fd;			/* /dev/gpiochipN */
};

static int sim_setup(void)
{
	char path[256];
	int i;

	KT_EXPECT(mkdir(SIM, 0755) == 0, "mkdir %s: %s", SIM, strerror(errno));
	KT_EXPECT(mkdir(BANK, 0755) == 0, "mkdir %s: %s", BANK, strerror(errno));
	KT_EXPECT(kt_write_file(BANK "/num_lines", "8") == 0,
		  "num_lines: %s", strerror(errno));
	KT_EXPECT(kt_write_file(BANK "/label", "tide-bank0") == 0,
		  "label: %s", strerror(errno));
	for (i = 0; i < NLINES; i++) {
		if (!line_names[i])
			continue;
		KT_EXPECT(mkdir(kt_path(path, sizeof(path), BANK "/line%d", i),
				0755) == 0, "mkdir %s: %s", path, strerror(errno));
		KT_EXPECT(kt_write_file(kt_path(path, sizeof(path),
					BANK "/line%d/name", i), line_names[i]) == 0,
			  "%s: %s", path, strerror(errno));
	}
	KT_EXPECT(mkdir(BANK "/line5/hog", 0755) == 0, "hog: %s", strerror(errno));
	KT_EXPECT(kt_write_file(BANK "/line5/hog/name", HOG_NAME) == 0,
		  "hog name: %s", strerror(errno));
	KT_EXPECT(kt_write_file(BANK "/line5/hog/direction", "output-high") == 0,
		  "hog direction: %s", strerror(errno));
	KT_EXPECT(kt_write_file(SIM "/live", "1") == 0, "live: %s", strerror(errno));
	return KT_PASS;
}

/* Find the live chip and open its character device. */
static int sim_open(struct sim *sim)
{
	char path[128];

	if (kt_read_file(BANK "/chip_name", sim->chip, sizeof(sim->chip)) < 0 ||
	    kt_read_file(SIM "/dev_name", sim->dev_name, sizeof(sim->dev_name)) < 0) {
		kt_diag("gpio-sim device not found in configfs: %s", strerror(errno));
		return -1;
	}
	kt_path(path, sizeof(path), "/dev/%s", sim->chip);
	if ((sim->fd = open(path, O_RDWR | O_CLOEXEC)) < 0) {
		kt_diag("open %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

static char *sim_attr(char *out, size_t size, const struct sim *sim, int line,
		      const char *attr)
{
	return kt_path(out, size, "/sys/devices/platform/%s/%s/sim_gpio%d/%s",
		       sim->dev_name, sim->chip, line, attr);
}

static int sim_value(const struct sim *sim, int line)
{
	char path[256], val[8];

	if (kt_read_file(sim_attr(path, sizeof(path), sim, line, "value"),
			 val, sizeof(val)) < 0)
		return -1;
	return val[0] == '1';
}

static int sim_pull(const struct sim *sim, int line, int up)
{
	char path[256];

	return kt_write_file(sim_attr(path, sizeof(path), sim, line, "pull"),
			     up ? "pull-up" : "pull-down");
}

static int line_info(const struct sim *sim, int line, struct gpio_v2_line_info *info)
{
	memset(info, 0, sizeof(*info));
	info->offset = line;
	return ioctl(sim->fd, GPIO_V2_GET_LINEINFO_IOCTL, info);
}

static int find_line(const struct sim *sim, const char *name)
{
	struct gpio_v2_line_info info;
	int i;

	for (i = 0; i < NLINES; i++)
		if (line_info(sim, i, &info) == 0 && !strcmp(info.name, name))
			return i;
	return -1;
}

/* Request lines; returns the request fd or -1 (errno kept). */
static int request(const struct sim *sim, const int *lines, int n,
		   __u64 flags, __u64 values)
{
	struct gpio_v2_line_request req;
	int i;

	memset(&req, 0, sizeof(req));
	for (i = 0; i < n; i++)
		req.offsets[i] = lines[i];
	req.num_lines = n;
	snprintf(req.consumer, sizeof(req.consumer), "%s", CONSUMER);
	req.config.flags = flags;
	if (flags & GPIO_V2_LINE_FLAG_OUTPUT) {
		req.config.num_attrs = 1;
		req.config.attrs[0].attr.id = GPIO_V2_LINE_ATTR_ID_OUTPUT_VALUES;
		req.config.attrs[0].attr.values = values;
		req.config.attrs[0].mask = (1ULL << n) - 1;
	}
	if (ioctl(sim->fd, GPIO_V2_GET_LINE_IOCTL, &req) < 0)
		return -1;
	return req.fd;
}

/* Request lines with a debounce period (microseconds) on all of them. */
static int request_debounced(const struct sim *sim, int line, __u64 flags, __u32 period_us)
{
	struct gpio_v2_line_request req;

	memset(&req, 0, sizeof(req));
	req.offsets[0] = line;
	req.num_lines = 1;
	snprintf(req.consumer, sizeof(req.consumer), "%s", CONSUMER);
	req.config.flags = flags;
	req.config.num_attrs = 1;
	req.config.attrs[0].attr.id = GPIO_V2_LINE_ATTR_ID_DEBOUNCE;
	req.config.attrs[0].attr.debounce_period_us = period_us;
	req.config.attrs[0].mask = 1;
	if (ioctl(sim->fd, GPIO_V2_GET_LINE_IOCTL, &req) < 0)
		return -1;
	return req.fd;
}

static int get_values(int fd, __u64 mask, __u64 *bits)
{
	struct gpio_v2_line_values v = { .mask = mask };

	if (ioctl(fd, GPIO_V2_LINE_GET_VALUES_IOCTL, &v) < 0)
		return -1;
	*bits = v.bits;
	return 0;
}

static int set_values(int fd, __u64 mask, __u64 bits)
{
	struct gpio_v2_line_values v = { .bits = bits, .mask = mask };

	return ioctl(fd, GPIO_V2_LINE_SET_VALUES_IOCTL, &v);
}

#define OPEN_SIM(sim)                                                      \
	do {                                                               \
		if (sim_open(&(sim)) < 0)                                  \
			return KT_FAIL;                                    \
	} while (0)

static int test_chip_info(void)
{
	struct gpiochip_info info;
	struct sim sim;

	OPEN_SIM(sim);
	memset(&info, 0, sizeof(info));
	KT_EXPECT(ioctl(sim.fd, GPIO_GET_CHIPINFO_IOCTL, &info) == 0,
		  "GPIO_GET_CHIPINFO_IOCTL: %s", strerror(errno));
	KT_EXPECT(!strcmp(info.name, sim.chip), "name '%s', expected '%s'",
		  info.name, sim.chip);
	KT_EXPECT(!strcmp(info.label, "tide-bank0"),
		  "label '%s', expected 'tide-bank0'", info.label);
	KT_EXPECT(info.lines == NLINES, "%u lines, expected %d", info.lines, NLINES);
	return KT_PASS;
}

static int test_line_info(void)
{
	struct gpio_v2_line_info info;
	struct sim sim;
	int i;

	OPEN_SIM(sim);
	for (i = 0; i < NLINES; i++) {
		const char *want = line_names[i] ? line_names[i] : "";

		KT_EXPECT(line_info(&sim, i, &info) == 0,
			  "line %d: GPIO_V2_GET_LINEINFO_IOCTL: %s", i, strerror(errno));
		KT_EXPECT(!strcmp(info.name, want), "line %d named '%s', expected '%s'",
			  i, info.name, want);
		if (i == HOG_LINE) {
			KT_EXPECT(info.flags & GPIO_V2_LINE_FLAG_USED,
				  "hogged line %d not marked used", i);
			KT_EXPECT(info.flags & GPIO_V2_LINE_FLAG_OUTPUT,
				  "hogged line %d not an output", i);
			KT_EXPECT(!strcmp(info.consumer, HOG_NAME),
				  "hog consumer '%s', expected '%s'", info.consumer,
				  HOG_NAME);
			KT_EXPECT(sim_value(&sim, i) == 1, "hog output-high reads %d",
				  sim_value(&sim, i));
		} else {
			KT_EXPECT(!(info.flags & GPIO_V2_LINE_FLAG_USED),
				  "line %d used by '%s'", i, info.consumer);
			KT_EXPECT(info.flags & GPIO_V2_LINE_FLAG_INPUT,
				  "line %d is not an input (flags %#llx)", i,
				  (unsigned long long)info.flags);
		}
	}
	return KT_PASS;
}

static int test_request_by_name(void)
{
	struct gpio_v2_line_info info;
	struct sim sim;
	int line, fd, hog = HOG_LINE;

	OPEN_SIM(sim);
	line = find_line(&sim, "button0");
	KT_EXPECT(line == 2, "line 'button0' found at %d, expected 2", line);
	fd = request(&sim, &line, 1, GPIO_V2_LINE_FLAG_INPUT, 0);
	KT_EXPECT(fd >= 0, "request 'button0': %s", strerror(errno));
	KT_EXPECT(line_info(&sim, line, &info) == 0, "line info: %s", strerror(errno));
	KT_EXPECT(info.flags & GPIO_V2_LINE_FLAG_USED, "requested line not used");
	KT_EXPECT(!strcmp(info.consumer, CONSUMER), "consumer '%s', expected '%s'",
		  info.consumer, CONSUMER);
	KT_EXPECT(find_line(&sim, "no-such-line") < 0, "a missing name was found");
	KT_EXPECT(request(&sim, &hog, 1, GPIO_V2_LINE_FLAG_INPUT, 0) < 0 &&
		  errno == EBUSY, "requesting the hogged line: %s, expected EBUSY",
		  strerror(errno));
	close(fd);
	return KT_PASS;
}

static int test_output_values(void)
{
	int lines[2] = { 0, 1 }, fd, wfd;
	char path[256];
	struct sim sim;

	OPEN_SIM(sim);
	fd = request(&sim, lines, 2, GPIO_V2_LINE_FLAG_OUTPUT, 0x1);
	KT_EXPECT(fd >= 0, "request outputs: %s", strerror(errno));
	KT_EXPECT(sim_value(&sim, 0) == 1 && sim_value(&sim, 1) == 0,
		  "initial values %d %d, expected 1 0", sim_value(&sim, 0),
		  sim_value(&sim, 1));
	KT_EXPECT(set_values(fd, 0x3, 0x2) == 0, "set values: %s", strerror(errno));
	KT_EXPECT(sim_value(&sim, 0) == 0 && sim_value(&sim, 1) == 1,
		  "after set: values %d %d, expected 0 1", sim_value(&sim, 0),
		  sim_value(&sim, 1));
	KT_EXPECT(set_values(fd, 0x1, 0x1) == 0, "set one value: %s", strerror(errno));
	KT_EXPECT(sim_value(&sim, 0) == 1 && sim_value(&sim, 1) == 1,
		  "masked set: values %d %d, expected 1 1", sim_value(&sim, 0),
		  sim_value(&sim, 1));
	/* gpio-sim's "value" is read-only by contract: writing is EPERM. */
	wfd = open(sim_attr(path, sizeof(path), &sim, 0, "value"), O_WRONLY);
	KT_EXPECT(wfd >= 0, "open %s: %s", path, strerror(errno));
	KT_EXPECT(write(wfd, "0", 1) < 0 && errno == EPERM,
		  "writing sysfs value: %s, expected EPERM", strerror(errno));
	close(wfd);
	KT_EXPECT(sim_value(&sim, 0) == 1, "value changed by a sysfs write");
	close(fd);
	return KT_PASS;
}

static int test_input_pull(void)
{
	int line = 2, fd;
	struct sim sim;
	__u64 bits = 0;

	OPEN_SIM(sim);
	fd = request(&sim, &line, 1, GPIO_V2_LINE_FLAG_INPUT, 0);
	KT_EXPECT(fd >= 0, "request input: %s", strerror(errno));
	KT_EXPECT(sim_pull(&sim, line, 1) == 0, "pull-up: %s", strerror(errno));
	KT_EXPECT(get_values(fd, 1, &bits) == 0, "get values: %s", strerror(errno));
	KT_EXPECT(bits == 1, "pulled up, reads %llu", (unsigned long long)bits);
	KT_EXPECT(sim_pull(&sim, line, 0) == 0, "pull-down: %s", strerror(errno));
	KT_EXPECT(get_values(fd, 1, &bits) == 0, "get values: %s", strerror(errno));
	KT_EXPECT(bits == 0, "pulled down, reads %llu", (unsigned long long)bits);
	close(fd);
	return KT_PASS;
}

/* Read one edge event within a second. */
static int read_event(int fd, struct gpio_v2_line_event *ev)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	if (poll(&p, 1, 1000) != 1) {
		kt_diag("no edge event within 1 s");
		return -1;
	}
	if (read(fd, ev, sizeof(*ev)) != sizeof(*ev)) {
		kt_diag("reading the event: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static const char *event_name(unsigned id)
{
	return id == GPIO_V2_LINE_EVENT_RISING_EDGE ? "rising" :
	       id == GPIO_V2_LINE_EVENT_FALLING_EDGE ? "falling" : "unknown";
}

/* The next event is id on line, with the request's and the line's sequence numbers. */
static int check_event2(int fd, unsigned id, int line, unsigned seqno, unsigned line_seqno)
{
	struct gpio_v2_line_event ev;

	if (read_event(fd, &ev) < 0)
		return KT_FAIL;
	KT_EXPECT(ev.id == id, "event id %u (%s), expected %u (%s)", ev.id,
		  event_name(ev.id), id, event_name(id));
	KT_EXPECT(ev.offset == (unsigned)line, "event on line %u, expected %d",
		  ev.offset, line);
	KT_EXPECT(ev.seqno == seqno && ev.line_seqno == line_seqno,
		  "sequence numbers %u/%u, expected %u/%u", ev.seqno, ev.line_seqno,
		  seqno, line_seqno);
	KT_EXPECT(ev.timestamp_ns != 0, "event without a timestamp");
	return KT_PASS;
}

static int check_event(int fd, unsigned id, unsigned seqno, int line)
{
	return check_event2(fd, id, line, seqno, seqno);
}

/* No event arrives within ms milliseconds. */
static int no_event(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	struct gpio_v2_line_event ev;

	if (poll(&p, 1, ms) == 0)
		return 1;
	if (read(fd, &ev, sizeof(ev)) == sizeof(ev))
		kt_diag("unexpected %s event on line %u (seqno %u)", event_name(ev.id),
			ev.offset, ev.seqno);
	return 0;
}

#define RISING GPIO_V2_LINE_EVENT_RISING_EDGE
#define FALLING GPIO_V2_LINE_EVENT_FALLING_EDGE

#define CHECK_EVENT(...)                                                   \
	do {                                                               \
		if (check_event2(__VA_ARGS__) != KT_PASS)                  \
			return KT_FAIL;                                    \
	} while (0)

static int test_edge_events(void)
{
	struct pollfd p;
	int line = 3, fd;
	struct sim sim;

	OPEN_SIM(sim);
	KT_EXPECT(sim_pull(&sim, line, 0) == 0, "pull-down: %s", strerror(errno));
	fd = request(&sim, &line, 1, GPIO_V2_LINE_FLAG_INPUT |
		     GPIO_V2_LINE_FLAG_EDGE_RISING | GPIO_V2_LINE_FLAG_EDGE_FALLING, 0);
	KT_EXPECT(fd >= 0, "request with edge detection: %s", strerror(errno));
	KT_EXPECT(sim_pull(&sim, line, 1) == 0, "pull-up: %s", strerror(errno));
	if (check_event(fd, GPIO_V2_LINE_EVENT_RISING_EDGE, 1, line) != KT_PASS)
		return KT_FAIL;
	KT_EXPECT(sim_pull(&sim, line, 0) == 0, "pull-down: %s", strerror(errno));
	if (check_event(fd, GPIO_V2_LINE_EVENT_FALLING_EDGE, 2, line) != KT_PASS)
		return KT_FAIL;
	KT_EXPECT(sim_pull(&sim, line, 1) == 0, "pull-up: %s", strerror(errno));
	if (check_event(fd, GPIO_V2_LINE_EVENT_RISING_EDGE, 3, line) != KT_PASS)
		return KT_FAIL;
	p = (struct pollfd){ .fd = fd, .events = POLLIN };
	KT_EXPECT(poll(&p, 1, 100) == 0, "an extra event without an edge");
	close(fd);
	return KT_PASS;
}

/* A line watching rising edges only: falling edges make no event. */
static int test_rising_only(void)
{
	int line = 3, fd;
	struct sim sim;

	OPEN_SIM(sim);
	KT_EXPECT(sim_pull(&sim, line, 0) == 0, "pull-down: %s", strerror(errno));
	fd = request(&sim, &line, 1, GPIO_V2_LINE_FLAG_INPUT | GPIO_V2_LINE_FLAG_EDGE_RISING, 0);
	KT_EXPECT(fd >= 0, "request rising edges: %s", strerror(errno));
	KT_EXPECT(sim_pull(&sim, line, 1) == 0, "pull-up: %s", strerror(errno));
	CHECK_EVENT(fd, RISING, line, 1, 1);
	KT_EXPECT(sim_pull(&sim, line, 0) == 0, "pull-down: %s", strerror(errno));
	KT_EXPECT(no_event(fd, 100), "a falling edge made an event on a rising-only line");
	KT_EXPECT(sim_pull(&sim, line, 1) == 0, "pull-up: %s", strerror(errno));
	CHECK_EVENT(fd, RISING, line, 2, 2);
	close(fd);
	return KT_PASS;
}

/* A line watching falling edges only: rising edges make no event. */
static int test_falling_only(void)
{
	int line = 3, fd;
	struct sim sim;

	OPEN_SIM(sim);
	KT_EXPECT(sim_pull(&sim, line, 1) == 0, "pull-up: %s", strerror(errno));
	fd = request(&sim, &line, 1, GPIO_V2_LINE_FLAG_INPUT | GPIO_V2_LINE_FLAG_EDGE_FALLING, 0);
	KT_EXPECT(fd >= 0, "request falling edges: %s", strerror(errno));
	KT_EXPECT(sim_pull(&sim, line, 0) == 0, "pull-down: %s", strerror(errno));
	CHECK_EVENT(fd, FALLING, line, 1, 1);
	KT_EXPECT(sim_pull(&sim, line, 1) == 0, "pull-up: %s", strerror(errno));
	KT_EXPECT(no_event(fd, 100), "a rising edge made an event on a falling-only line");
	KT_EXPECT(sim_pull(&sim, line, 0) == 0, "pull-down: %s", strerror(errno));
	CHECK_EVENT(fd, FALLING, line, 2, 2);
	close(fd);
	return KT_PASS;
}

/*
 * Two lines in one request: seqno counts the request's events, line_seqno
 * each line's, so after events on both lines they differ.
 */
static int test_two_lines(void)
{
	int lines[2] = { 6, 7 }, fd;
	struct sim sim;

	OPEN_SIM(sim);
	KT_EXPECT(sim_pull(&sim, 6, 0) == 0 && sim_pull(&sim, 7, 0) == 0,
		  "pull-down: %s", strerror(errno));
	fd = request(&sim, lines, 2, GPIO_V2_LINE_FLAG_INPUT | GPIO_V2_LINE_FLAG_EDGE_RISING |
		     GPIO_V2_LINE_FLAG_EDGE_FALLING, 0);
	KT_EXPECT(fd >= 0, "request two lines with edges: %s", strerror(errno));
	KT_EXPECT(sim_pull(&sim, 6, 1) == 0, "pull-up 6: %s", strerror(errno));
	CHECK_EVENT(fd, RISING, 6, 1, 1);
	KT_EXPECT(sim_pull(&sim, 7, 1) == 0, "pull-up 7: %s", strerror(errno));
	CHECK_EVENT(fd, RISING, 7, 2, 1);
	KT_EXPECT(sim_pull(&sim, 7, 0) == 0, "pull-down 7: %s", strerror(errno));
	CHECK_EVENT(fd, FALLING, 7, 3, 2);
	KT_EXPECT(sim_pull(&sim, 6, 0) == 0, "pull-down 6: %s", strerror(errno));
	CHECK_EVENT(fd, FALLING, 6, 4, 2);
	close(fd);
	return KT_PASS;
}

/*
 * Active-low: values are the inverse of the physical level both ways, and
 * a physical falling edge is a logical rising one.
 */
static int test_active_low(void)
{
	int in = 2, out = 1, fd, ofd;
	struct sim sim;
	__u64 bits = 0;

	OPEN_SIM(sim);
	ofd = request(&sim, &out, 1, GPIO_V2_LINE_FLAG_OUTPUT | GPIO_V2_LINE_FLAG_ACTIVE_LOW, 1);
	KT_EXPECT(ofd >= 0, "request active-low output: %s", strerror(errno));
	KT_EXPECT(sim_value(&sim, out) == 0, "active-low output 1 drives %d, expected 0",
		  sim_value(&sim, out));
	KT_EXPECT(set_values(ofd, 1, 0) == 0, "set value: %s", strerror(errno));
	KT_EXPECT(sim_value(&sim, out) == 1, "active-low output 0 drives %d, expected 1",
		  sim_value(&sim, out));
	close(ofd);
	KT_EXPECT(sim_pull(&sim, in, 1) == 0, "pull-up: %s", strerror(errno));
	fd = request(&sim, &in, 1, GPIO_V2_LINE_FLAG_INPUT | GPIO_V2_LINE_FLAG_ACTIVE_LOW |
		     GPIO_V2_LINE_FLAG_EDGE_RISING | GPIO_V2_LINE_FLAG_EDGE_FALLING, 0);
	KT_EXPECT(fd >= 0, "request active-low input: %s", strerror(errno));
	KT_EXPECT(get_values(fd, 1, &bits) == 0 && bits == 0,
		  "pulled up, active-low reads %llu, expected 0", (unsigned long long)bits);
	KT_EXPECT(sim_pull(&sim, in, 0) == 0, "pull-down: %s", strerror(errno));
	CHECK_EVENT(fd, RISING, in, 1, 1);
	KT_EXPECT(get_values(fd, 1, &bits) == 0 && bits == 1,
		  "pulled down, active-low reads %llu, expected 1", (unsigned long long)bits);
	KT_EXPECT(sim_pull(&sim, in, 1) == 0, "pull-up: %s", strerror(errno));
	CHECK_EVENT(fd, FALLING, in, 2, 2);
	close(fd);
	return KT_PASS;
}

/*
 * Debounce: gpio-sim has none in hardware, so gpiolib debounces in
 * software.  A pulse shorter than the period makes no event; a level that
 * stays makes exactly one, after the period.
 */
static int test_debounce(void)
{
	struct gpio_v2_line_info info;
	int line = 4, fd, i;
	struct sim sim;

	OPEN_SIM(sim);
	KT_EXPECT(sim_pull(&sim, line, 0) == 0, "pull-down: %s", strerror(errno));
	fd = request_debounced(&sim, line, GPIO_V2_LINE_FLAG_INPUT | GPIO_V2_LINE_FLAG_EDGE_RISING |
			       GPIO_V2_LINE_FLAG_EDGE_FALLING, 50000);
	KT_EXPECT(fd >= 0, "request with a 50 ms debounce: %s", strerror(errno));
	KT_EXPECT(line_info(&sim, line, &info) == 0, "line info: %s", strerror(errno));
	for (i = 0; i < (int)info.num_attrs; i++)
		if (info.attrs[i].id == GPIO_V2_LINE_ATTR_ID_DEBOUNCE)
			break;
	KT_EXPECT(i < (int)info.num_attrs && info.attrs[i].debounce_period_us == 50000,
		  "line info does not report the 50 ms debounce period");
	/* A pulse up and down again within the period: nothing. */
	KT_EXPECT(sim_pull(&sim, line, 1) == 0 && sim_pull(&sim, line, 0) == 0,
		  "pulse: %s", strerror(errno));
	KT_EXPECT(no_event(fd, 200), "a pulse shorter than the debounce period made an event");
	/* Bouncing up: one rising edge once it settles. */
	KT_EXPECT(sim_pull(&sim, line, 1) == 0 && sim_pull(&sim, line, 0) == 0 &&
		  sim_pull(&sim, line, 1) == 0, "bounce: %s", strerror(errno));
	CHECK_EVENT(fd, RISING, line, 1, 1);
	KT_EXPECT(no_event(fd, 200), "a bouncing edge made more than one event");
	close(fd);
	return KT_PASS;
}

static int test_release_rerequest(void)
{
	struct gpio_v2_line_info info;
	int line = 4, fd, fd2;
	struct sim sim;

	OPEN_SIM(sim);
	fd = request(&sim, &line, 1, GPIO_V2_LINE_FLAG_OUTPUT, 1);
	KT_EXPECT(fd >= 0, "request: %s", strerror(errno));
	KT_EXPECT(request(&sim, &line, 1, GPIO_V2_LINE_FLAG_INPUT, 0) < 0 &&
		  errno == EBUSY, "second request: %s, expected EBUSY",
		  strerror(errno));
	close(fd);
	KT_EXPECT(line_info(&sim, line, &info) == 0, "line info: %s", strerror(errno));
	KT_EXPECT(!(info.flags & GPIO_V2_LINE_FLAG_USED),
		  "line still used by '%s' after release", info.consumer);
	fd2 = request(&sim, &line, 1, GPIO_V2_LINE_FLAG_INPUT, 0);
	KT_EXPECT(fd2 >= 0, "re-request after release: %s", strerror(errno));
	KT_EXPECT(line_info(&sim, line, &info) == 0 &&
		  (info.flags & GPIO_V2_LINE_FLAG_INPUT),
		  "re-requested line is not an input");
	close(fd2);
	return KT_PASS;
}

/* The address of a symbol in /proc/kallsyms: 1 found, 0 absent, -1 error. */
static int kallsyms_addr(const char *sym, unsigned long long *addr)
{
	char line[512], name[256], type;
	unsigned long long a;
	int found = 0;
	FILE *fp;

	if (!(fp = fopen("/proc/kallsyms", "r")))
		return -1;
	while (!found && fgets(line, sizeof(line), fp)) {
		if (sscanf(line, "%llx %c %255s", &a, &type, name) == 3 &&
		    !strcmp(name, sym)) {
			*addr = a;
			found = 1;
		}
	}
	fclose(fp);
	return found;
}

/*
 * The gpio series makes the legacy integer API optional
 * (CONFIG_GPIOLIB_LEGACY, a hidden option its users select).  Mainline has
 * no such option and always has gpio_request().  The option is read from
 * the running kernel, not from a copy of its .config: a kernel that cannot
 * say how it was configured fails the test.
 *
 * A hidden option that nothing selects leaves no line in .config, so
 * "unset" looks like mainline's "does not exist".  What tells them apart
 * is where devm_gpio_request() lives: mainline links it in
 * gpiolib-devres.o, before gpiolib-legacy.o's gpio_free(); the series
 * moves it into gpiolib-legacy.o, after gpio_free().  So with the option
 * unset: no gpio_request is the series with the option off (pass); a
 * gpio_request laid out the series' way is the legacy code built although
 * nothing selected it (fail); one laid out mainline's way is mainline.
 */
static int test_legacy_api(void)
{
	unsigned long long req = 0, devm = 0, fre = 0;
	char val[16];
	int has;

	if (kt_config_value("CONFIG_GPIOLIB_LEGACY", val, sizeof(val)) < 0) {
		kt_diag("cannot read /proc/config.gz: %s (CONFIG_IKCONFIG_PROC unset?)",
			strerror(errno));
		return KT_FAIL;
	}
	has = kallsyms_addr("gpio_request", &req);
	KT_EXPECT(has >= 0, "/proc/kallsyms: %s", strerror(errno));
	if (val[0] == 'y') {
		kt_diag("CONFIG_GPIOLIB_LEGACY=y: legacy API expected");
		KT_EXPECT(has == 1, "gpio_request is not in /proc/kallsyms");
		return KT_PASS;
	}
	if (!has) {
		kt_diag("CONFIG_GPIOLIB_LEGACY unset: legacy API not expected, and absent");
		return KT_PASS;
	}
	KT_EXPECT(kallsyms_addr("devm_gpio_request", &devm) == 1 &&
		  kallsyms_addr("gpio_free", &fre) == 1,
		  "gpio_request without devm_gpio_request or gpio_free");
	KT_EXPECT(devm && fre, "/proc/kallsyms hides addresses: cannot tell mainline from an unselected legacy API");
	KT_EXPECT(devm < fre,
		  "CONFIG_GPIOLIB_LEGACY unset, but gpio_request is in /proc/kallsyms (devm_gpio_request in gpiolib-legacy.o: not mainline)");
	kt_diag("CONFIG_GPIOLIB_LEGACY does not exist (mainline): legacy API expected");
	return KT_PASS;
}

static const struct ktest gpio_tests[] = {
	{ "chip_info", test_chip_info },
	{ "line_info", test_line_info },
	{ "request_by_name", test_request_by_name },
	{ "output_values", test_output_values },
	{ "input_pull", test_input_pull },
	{ "edge_events", test_edge_events },
	{ "rising_only", test_rising_only },
	{ "falling_only", test_falling_only },
	{ "two_lines", test_two_lines },
	{ "active_low", test_active_low },
	{ "debounce", test_debounce },
	{ "release_rerequest", test_release_rerequest },
	{ "legacy_api", test_legacy_api },
};

const struct ksuite gpio_suite = {
	"gpio", sim_setup, gpio_tests, sizeof(gpio_tests) / sizeof(gpio_tests[0]),
};
