# A small "kernel world" for the run tests (sourced after lib.sh):
# $TRASH/world/mainline with tag v1.0 and trees cloned from it, each on
# branch for-next.  Relative paths in trees.conf are taken from its
# directory, so the conf lives in $TRASH/world.

# make_mainline: files a, b, d/x; tag v1.0.
make_mainline() {
	git init -q -b master world/mainline &&
	commit_file world/mainline a "a" &&
	commit_file world/mainline b "b" &&
	commit_file world/mainline d/x "x" "mainline: add d/x" &&
	git -C world/mainline tag v1.0
}

# commit_fake_mainline: world/mainline, already filled (fake_kernel_source
# and sources), made a repository of one commit tagged v1.0.
commit_fake_mainline() {
	git init -q -b master world/mainline &&
	git -C world/mainline add . && git -C world/mainline commit -qm mainline &&
	git -C world/mainline tag v1.0
}

# fake_kernel_source DIR [RECIPE]: a Makefile that "builds" a kernel the
# way tide's build stage drives Kbuild (O=, tinyconfig, defconfig,
# olddefconfig, scripts/kconfig/merge_config.sh with any number of
# fragments, ARCH=arm64's Image), so the build stage runs with no real
# kernel: every *.c is compiled by RECIPE (make syntax, compiles $< to
# $@; default with -Wall) and the objects are cat into the image, with
# Kbuild's "  CC      x.o" and "  LD      vmlinux" lines.  "make x.o"
# (the W=1 / C=1 pass over a day's objects) prints a warning for each
# of W=1 and C=1 given.  Each
# build writes O/make-vars: the ARCH, CROSS_COMPILE, W, C and CC it got.
fake_kernel_source() {
	mkdir -p "$1/scripts/kconfig" &&
	{
		printf '%s\n' '.RECIPEPREFIX = >' 'O ?= .' 'SRCS = $(wildcard *.c)' \
			'IMAGE = $(if $(filter arm64,$(ARCH)),arch/arm64/boot/Image,arch/x86/boot/bzImage)' \
			'all: $(O)/$(IMAGE)' '$(O)/%.o: %.c' '> @echo "  CC      $(notdir $@)"'
		printf '> %s\n' "${2:-\$(CC) -Wall -c \$(CURDIR)/\$< -o \$@}"
		printf '%s\n' '$(O)/$(IMAGE): $(SRCS:%.c=$(O)/%.o)' \
			'> @echo "  LD      vmlinux"' \
			'> mkdir -p $(dir $@) && cat $^ > $@' \
			'> echo "ARCH=$(ARCH) CROSS_COMPILE=$(CROSS_COMPILE) W=$(W) C=$(C) CC=$(CC)" > $(O)/make-vars' \
			'%.o: %.c FORCE' '> @echo "  CC      $@"' \
			'> $(CC) -c $(CURDIR)/$*.c -o $(O)/$@' \
			'> $(if $(W),@echo "$*.c:1:1: warning: W=1 looked at $*")' \
			'> $(if $(C),@echo "$*.c:1:2: warning: sparse looked at $*")' \
			'.PHONY: FORCE' 'FORCE:' \
			'tinyconfig:' '> mkdir -p $(O) && echo CONFIG_TINY=y > $(O)/.config' \
			'defconfig:' '> mkdir -p $(O) && echo CONFIG_DEFCONFIG=y > $(O)/.config' \
			'olddefconfig:' '> sed -i /CONFIG_DROPPED/d $(O)/.config'
	} > "$1/Makefile" &&
	cat > "$1/scripts/kconfig/merge_config.sh" <<-\EOF &&
	#!/bin/sh
	# -m -O DIR CONFIG FRAGMENT...: a later value of an option replaces the
	# earlier one in its place, as the real script does.
	c=$4; shift 4
	cat "$c" "$@" | awk '{ k = $0; sub(/^# /, "", k); sub(/[= ].*/, "", k);
		if (!(k in v)) o[n++] = k; v[k] = $0 }
		END { for (i = 0; i < n; i++) print v[o[i]] }' >"$c.new" && mv "$c.new" "$c"
	EOF
	chmod +x "$1/scripts/kconfig/merge_config.sh"
}

# make_tree NAME FILE TEXT [SUBJECT]: clone mainline, branch for-next, one commit.
make_tree() {
	git clone -q world/mainline "world/$1" &&
	git -C "world/$1" checkout -q -b for-next &&
	commit_file "world/$1" "$2" "$3" "${4:-$1: change $2}"
}

# conf LINES...: write world/trees.conf with the base and the given rows
# ("name type url" with spaces turned into tabs).
conf() {
	{
		printf '#tide\tbase\tmainline#v1.0\n'
		printf 'Trees included into this release:\n\nName\t\tType\tURL\n----\t\t----\t---\n'
		for row in "$@"; do
			printf '%s\n' "$row" | tr ' ' '\t'
		done
	} > world/trees.conf
}

# day_field DATE EXPR: a value from the day record of workspace ${WS:-ws},
# by a python expression on d.
day_field() {
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "${WS:-ws}/days/$1/day.json"
}
