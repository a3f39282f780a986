#!/bin/sh
# On a terminal, what stays on screen is decided by the event's severity:
# ordinary lines of trees named "conflict-fixes" or "failed-driver" only
# redraw the status line; a real conflict stays.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-world.sh"

# on_tty CMD...: run CMD with stderr on a pseudo-terminal; the terminal
# output goes to tty.out, stdout to out.
on_tty() {
	python3 - "$@" <<-\PY
	import os, pty, subprocess, sys
	master, slave = pty.openpty()
	with open("out", "wb") as out:
	    p = subprocess.Popen(sys.argv[1:], stdout=out, stderr=slave)
	os.close(slave)
	data = b""
	while True:
	    try:
	        chunk = os.read(master, 65536)
	    except OSError:
	        break
	    if not chunk:
	        break
	    data += chunk
	open("tty.out", "wb").write(data)
	sys.exit(p.wait())
	PY
}

# kept: the lines that stayed on the screen (each ended by a newline),
# without the status-line redraws before them.
kept() {
	python3 -c '
import sys
data = open("tty.out", "rb").read().decode().replace("\r\n", "\n")
for line in data.split("\n")[:-1]:
    print(line.split("\r\033[K")[-1])
'
}

test_expect_success 'setup: trees whose names hold problem words' '
	make_mainline &&
	make_tree conflict-fixes a "fixes" &&
	make_tree failed-driver b "driver" &&
	make_tree gpio a "gpio" &&
	conf "conflict-fixes git conflict-fixes#for-next" \
		"failed-driver git failed-driver#for-next" "gpio git gpio#for-next"
'

test_expect_success 'only the conflict stays on screen' '
	rc=0 && on_tty "$TIDE_BIN" -C ws -f world/trees.conf run --no-build --date 2026-12-01 || rc=$? &&
	test $rc = 1 &&
	kept >actual &&
	echo "[2/3] gpio: conflict in 1 path (a), left out" >expect &&
	test_cmp expect actual
'

test_expect_success 'a log gets every event as a line' '
	test_must_fail --status=1 tide -C ws run --no-build --date 2026-12-02 >out 2>err &&
	grep -c "^tide: " err >n && test $(cat n) -ge 9 &&
	grep -q "^tide: conflict-fixes: merged$" err &&
	grep -q "^tide: failed-driver: merged$" err &&
	grep -q "^tide: gpio: conflict in 1 path (a), left out$" err
'

test_done
