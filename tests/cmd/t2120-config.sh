#!/bin/sh
# The workspace remembers its trees.conf (DIR/config "trees"); usage
# errors come before trees.conf; tide help; report and log details.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-world.sh"

test_expect_success 'run --bogus and a bad --date are usage errors without trees.conf' '
	test_must_fail --status=2 tide -C ws run --bogus 2>err &&
	grep -q "unrecognized option" err &&
	test_must_fail --status=2 tide -C ws run --date 2026-13-01 2>err &&
	head -n 1 err >actual &&
	test_cmp_str "tide: bad date '\''2026-13-01'\'' for --date (expected YYYY-MM-DD)" actual &&
	test_must_fail --status=2 tide -C ws run --date=yesterday 2>err &&
	test ! -e ws &&
	test_must_fail --status=3 tide -C ws run --date 2026-12-01 2>err &&
	grep -q "cannot read trees.conf" err
'

test_expect_success 'setup: the first run with -f' '
	make_mainline &&
	make_tree t1 a "t1" && make_tree t2 b "t2" &&
	conf "t1 git t1#for-next" "t2 git t2#for-next" &&
	tide -C ws -f world/trees.conf run --no-build --date 2026-12-01 >out 2>err
'

test_expect_success 'the first run stores the absolute path in DIR/config' '
	echo "trees = $TRASH/world/trees.conf" >expect &&
	test_cmp expect ws/config
'

test_expect_success 'later commands read the remembered trees.conf' '
	tide -C ws -f world/trees.conf trees >expect &&
	tide -C ws trees >actual &&
	test_cmp expect actual &&
	tide -C ws run --no-build --date 2026-12-02 >out 2>err &&
	grep -q "^next-20261202: 2 of 2 trees merged$" out &&
	tide -C ws report --mail --dry-run >out 2>err &&
	tide -C ws resolve --record 2>err || grep -q "nothing to record" err &&
	! grep -q "cannot read trees.conf" err
'

test_expect_success '-f on another command is used once and not remembered' '
	cp world/trees.conf other.conf &&
	sed -i "/^t2/d" other.conf &&
	tide -C ws -f other.conf trees >out &&
	! grep -q "^t2" out &&
	echo "trees = $TRASH/world/trees.conf" >expect &&
	test_cmp expect ws/config
'

test_expect_success 'run -f with another file switches, and says so' '
	cp world/trees.conf world/moved.conf &&
	tide -C ws -f world/moved.conf run --no-build --date 2026-12-03 >out 2>err &&
	head -n 1 err >actual &&
	test_cmp_str "tide: note: workspace '\''$TRASH/ws'\'' now uses trees.conf '\''$TRASH/world/moved.conf'\'' (was '\''$TRASH/world/trees.conf'\'')" actual &&
	echo "trees = $TRASH/world/moved.conf" >expect &&
	test_cmp expect ws/config &&
	tide -C ws -f world/moved.conf run --no-build --date 2026-12-03 >out 2>err &&
	! grep -q "note:" err
'

test_expect_success 'a remembered trees.conf that is gone is named' '
	mv world/moved.conf world/gone.conf &&
	test_must_fail --status=3 tide -C ws trees 2>err &&
	grep -q "moved.conf" err &&
	mv world/gone.conf world/moved.conf
'

test_expect_success 'comments and other keys of DIR/config are kept' '
	printf "# mine\nbuild.jobs = 2\ntrees = %s\n" "$TRASH/world/trees.conf" >ws/config &&
	tide -C ws -f world/moved.conf run --no-build --date 2026-12-03 >out 2>err &&
	printf "# mine\nbuild.jobs = 2\ntrees = %s\n" "$TRASH/world/moved.conf" >expect &&
	test_cmp expect ws/config
'

test_expect_success 'a bad DIR/config is bad input naming the line' '
	cp ws/config config.good &&
	echo "no equals sign" >>ws/config &&
	test_must_fail --status=3 tide -C ws log 2>err &&
	grep -q "config:4" err &&
	cp config.good ws/config
'

test_expect_success 'resolve needs no trees.conf at all' '
	mv ws/config config.saved &&
	tide -C ws resolve --record 2>err || grep -q "nothing to record" err &&
	! grep -q "trees.conf" err &&
	mv config.saved ws/config
'

test_expect_success 'report takes next-YYYYMMDD like show' '
	tide -C ws report 2026-12-02 >expect &&
	tide -C ws report next-20261202 >actual &&
	test_cmp expect actual &&
	test_must_fail --status=2 tide -C ws report next-2026120 2>err &&
	grep -q "bad date .next-2026120." err
'

test_expect_success 'tide help lists the commands as --help does' '
	tide --help >expect &&
	tide help >actual &&
	test_cmp expect actual &&
	grep -q "^  help " actual
'

test_expect_success 'tide help CMD is CMD --help' '
	for c in run show report resolve log help; do
		tide $c --help >expect && tide help $c >actual && test_cmp expect actual || exit 1
	done &&
	test_must_fail --status=2 tide help nope 2>err &&
	test_cmp_str "tide: '\''nope'\'' is not a tide command; see '\''tide help'\''" err
'

test_expect_success 'tide log counts stale fetches' '
	sed -i "s|t2#for-next|moved-away#for-next|" world/moved.conf &&
	test_must_fail --status=1 tide -C ws run --no-build --date 2026-12-04 >out 2>err &&
	tide -C ws log >out &&
	head -n 1 out >actual &&
	echo "2026-12-04  next-20261204  2/2 merged  1 not fetched (older commit used)" >expect &&
	test_cmp expect actual
'

test_done
