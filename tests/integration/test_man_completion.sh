#!/usr/bin/env bash
# Man pages and bash completion (issue 17): a page per command, made from its
# --help (every option of the --help is in the page), rendered by groff/man
# without warnings, installed and removed by make install/uninstall; the
# completion offers the commands, every option of each command's --help,
# interfaces for -i and capture files for report/info/export/compare.
source "$(dirname "$0")/lib.sh"
need_cmd groff
need_cmd man
MAN=$ROOT/$BUILD/man
cmds=$("$FT" --help | sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z]*\)  .*/\1/p')
check "the command table lists commands ($(echo $cmds))" test "$(wc -w <<<"$cmds")" -ge 6
check "fabtrace(1) exists" test -s "$MAN/fabtrace.1"
for c in $cmds; do
	page=$MAN/fabtrace-$c.1
	if [[ ! -s $page ]]; then
		bad "fabtrace-$c(1) missing"
		continue
	fi
	missing=()
	for o in $("$FT" "$c" --help | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u); do
		grep -qF -- "${o//-/\\-}" "$page" || missing+=("$o")
	done
	check "fabtrace-$c(1) has every option of its --help ${missing[*]}" test ${#missing[@]} = 0
	w=$(LC_ALL=C.UTF-8 groff -man -ww -z "$page" 2>&1)
	check "fabtrace-$c(1): groff renders it without warnings $w" test -z "$w"
	_rc=0
	MANWIDTH=80 man -l "$page" >"$TMPD/$c.txt" 2>"$TMPD/$c.err" || _rc=$?
	check "fabtrace-$c(1): man renders it ($(head -c 200 "$TMPD/$c.err"))" \
		test "$_rc" = 0 -a ! -s "$TMPD/$c.err" -a "$(grep -c . "$TMPD/$c.txt")" -gt 10
	check "fabtrace-$c(1) has NAME, SYNOPSIS, DESCRIPTION, EXAMPLES, EXIT STATUS" \
		test "$(grep -cE '^(NAME|SYNOPSIS|DESCRIPTION|EXAMPLES|EXIT STATUS)$' "$TMPD/$c.txt")" = 5
	# the section holds the help's own words, not the heading's line left in the text
	check "fabtrace-$c(1): its EXIT STATUS starts with the exit codes" \
		grep -qE '^ +0[ ,;]' <(sed -n '/^EXIT STATUS$/,/^[A-Z]/p' "$TMPD/$c.txt")
done

# make install / uninstall put the pages and the completion in place and take them away
san=0
[[ $BUILD == */san ]] && san=1
dest=$TMPD/root
rc=0
make -s -C "$ROOT" install BUILD="$BUILD" SANITIZE=$san DESTDIR="$dest" PREFIX=/usr >"$TMPD/install.log" 2>&1 || rc=$?
check "make install DESTDIR=... ($(tail -n 2 "$TMPD/install.log"))" test "$rc" = 0
pages=("$dest"/usr/share/man/man1/fabtrace*.1)
n=0
[[ -e ${pages[0]} ]] && n=${#pages[@]}
check "it installs $n man pages (one per command and fabtrace(1))" test "$n" = $(($(wc -w <<<"$cmds") + 1))
check "and the bash completion" test -s "$dest/usr/share/bash-completion/completions/fabtrace"
make -s -C "$ROOT" uninstall BUILD="$BUILD" SANITIZE=$san DESTDIR="$dest" PREFIX=/usr >/dev/null 2>&1
left=$(find "$dest" -type f | wc -l)
check "make uninstall removes them all ($left files left)" test "$left" = 0

# the completion, driven as bash drives it
cd "$TMPD" || exit 1
touch a.ftr b.ftr notes.txt
mkdir -p sub
comp() { # WORDS...: COMPREPLY for completing the last word
	bash -c '
		source "$1"
		PATH=$(dirname "$2"):$PATH
		shift 2
		COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		_fabtrace
		printf "%s\n" "${COMPREPLY[@]}"' _ "$ROOT/tools/completion/fabtrace.bash" "$FT" "$@"
}
got=$(comp fabtrace "" | sort | tr '\n' ' ')
miss=()
for c in $cmds; do grep -qw "$c" <<<"$got" || miss+=("$c"); done
check "commands complete ($got)" test ${#miss[@]} = 0
for c in $cmds; do
	miss=()
	offered=$(comp fabtrace "$c" -)
	# every option the help names before its examples (which show other
	# programs' options too: srun's, mpiexec's, curl's)
	for o in $("$FT" "$c" --help | awk '/^Examples:/ { exit } { print }' | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u); do
		grep -qx -- "$o" <<<"$offered" || miss+=("$o")
	done
	check "fabtrace $c: every --help option completes ${miss[*]}" test ${#miss[@]} = 0
done
check "the examples' other programs' options are not offered ($(comp fabtrace record --n | tr '\n' ' '))" \
	test -z "$(comp fabtrace record --n | grep -x -e --ntasks-per-node)" -a -z "$(comp fabtrace top -s)"
check "record --coverage completes its modes ($(comp fabtrace record --coverage "" | tr '\n' ' '))" \
	test "$(comp fabtrace record --coverage "" | sort | tr '\n' ' ')" = "auto counters kernel pid1 "
check "top --sort completes its keys ($(comp fabtrace top --sort b | tr '\n' ' '))" \
	test "$(comp fabtrace top --sort b | sort | tr '\n' ' ')" = "backlog bursts "
check "history completes directories ($(comp fabtrace history "" | tr '\n' ' '))" \
	test "$(comp fabtrace history "" | sort | tr '\n' ' ')" = "root sub "
check "report completes capture files, not others ($(comp fabtrace report "" | tr '\n' ' '))" \
	test "$(comp fabtrace report "" | grep -vxE 'sub|root' | sort | tr '\n' ' ')" = "a.ftr b.ftr "
check "compare completes capture files on both sides of its -- ($(comp fabtrace compare a.ftr -- "" | tr '\n' ' '))" \
	test "$(comp fabtrace compare a.ftr -- "" | grep -vxE 'sub|root' | sort | tr '\n' ' ')" = "a.ftr b.ftr " -a \
	"$(comp fabtrace compare "" | grep -vxE 'sub|root' | sort | tr '\n' ' ')" = "a.ftr b.ftr "
check "-i completes interfaces (lo)" grep -qx lo <<<"$(comp fabtrace record -i "")"
check "record --trigger completes the rules' metrics ($(comp fabtrace record --trigger link. | tr '\n' ' '))" \
	test "$(comp fabtrace record --trigger link. | tr '\n' ' ')" = "link.drops link.retrans link.ce link.pause link.cnp "
check "record completes --keep-summaries and --no-summaries" \
	test "$(comp fabtrace record --keep-s | tr '\n' ' ')" = "--keep-size --keep-summaries " -a \
	"$(comp fabtrace record --no-su | tr '\n' ' ')" = "--no-summaries "
check "history completes its options ($(comp fabtrace history --b | tr '\n' ' '))" \
	test "$(comp fabtrace history --b | tr '\n' ' ')" = "--bucket "
check "--format completes csv and jsonl" test "$(comp fabtrace export --format "" | tr '\n' ' ')" = "csv jsonl "
finish
