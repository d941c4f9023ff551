# bash completion for fabtrace (installed by `make install` into
# PREFIX/share/bash-completion/completions/fabtrace).
#
# Commands and options come from the binary's own --help, so they never drift
# from it: `fabtrace --help` lists the commands, `fabtrace CMD --help` their
# options (read once per shell and command).  Values: interfaces for -i/--iface
# (also NETNS/IFACE of every `ip netns`), network namespaces for --netns,
# capture files (*.ftr) for the commands that read one, and -o/--output files.

_fabtrace_commands() {
	"$1" --help 2>/dev/null | sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z]*\)  .*/\1/p'
}

# every long and short option the command's --help lists, one per line: the
# usage line and the option column of the lines that start with an option,
# up to the examples (whose other programs' options are not ours)
_fabtrace_options() {
	"$1" "$2" --help 2>/dev/null |
		awk '/^Examples:/ { exit } /^Usage:/ { print; next } /^ +-/ { sub(/^ +/, ""); sub(/  .*/, ""); print }' |
		grep -oE -- '(^|[ ,[])--?[a-zA-Z][a-zA-Z0-9-]*' | sed 's/^[][ ,]*//' | sort -u
}

_fabtrace_ifaces() {
	local ns
	ip -o link show 2>/dev/null | awk -F': ' '{ sub(/@.*/, "", $2); print $2 }'
	for ns in $(ip netns list 2>/dev/null | awk '{ print $1 }'); do
		ip -n "$ns" -o link show 2>/dev/null | awk -F': ' -v ns="$ns" '{ sub(/@.*/, "", $2); print ns "/" $2 }'
	done
}

_fabtrace() {
	local cur prev bin cmd i opts
	COMPREPLY=()
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD - 1]}
	bin=${COMP_WORDS[0]}
	command -v "$bin" >/dev/null 2>&1 || bin=fabtrace
	cmd=
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		-*) ;;
		*)
			cmd=${COMP_WORDS[i]}
			break
			;;
		esac
	done
	if [[ -z $cmd ]]; then
		# shellcheck disable=SC2207
		COMPREPLY=($(compgen -W "$(_fabtrace_commands "$bin") --help --version -V" -- "$cur"))
		return 0
	fi
	# after `record ... --`, the rest is a command line (compare's -- parts its sides)
	for ((i = 2; i < COMP_CWORD; i++)); do
		if [[ ${COMP_WORDS[i]} == -- && $cmd != compare ]]; then
			# shellcheck disable=SC2207
			COMPREPLY=($(compgen -c -- "$cur"))
			return 0
		fi
	done
	case $prev in
	-i | --iface)
		# shellcheck disable=SC2207
		COMPREPLY=($(compgen -W "$(_fabtrace_ifaces)" -- "$cur"))
		return 0
		;;
	--netns)
		# shellcheck disable=SC2207
		COMPREPLY=($(compgen -W "$(ip netns list 2>/dev/null | awk '{ print $1 }')" -- "$cur"))
		return 0
		;;
	-o | --output | --record | --html | --svg | --perfetto | --speedscope | --folded | --snapshot-dir)
		# shellcheck disable=SC2207
		COMPREPLY=($(compgen -f -- "$cur"))
		return 0
		;;
	-f | --format)
		# shellcheck disable=SC2207
		[[ $cmd == export ]] && COMPREPLY=($(compgen -W "csv jsonl" -- "$cur"))
		return 0
		;;
	-w | --what)
		# shellcheck disable=SC2207
		[[ $cmd == export ]] && COMPREPLY=($(compgen -W "bins qdisc events counters all" -- "$cur"))
		return 0
		;;
	-s | --sort)
		# shellcheck disable=SC2207
		[[ $cmd == report ]] && COMPREPLY=($(compgen -W "bytes peak time" -- "$cur"))
		# shellcheck disable=SC2207
		[[ $cmd == top ]] && COMPREPLY=($(compgen -W "rate peak bursts backlog drops name" -- "$cur"))
		return 0
		;;
	--weight)
		# shellcheck disable=SC2207
		[[ $cmd == report ]] && COMPREPLY=($(compgen -W "time bytes" -- "$cur"))
		return 0
		;;
	--coverage)
		# shellcheck disable=SC2207
		COMPREPLY=($(compgen -W "auto kernel pid1 counters" -- "$cur"))
		return 0
		;;
	--format-version)
		# shellcheck disable=SC2207
		COMPREPLY=($(compgen -W "1 2" -- "$cur"))
		return 0
		;;
	--phases)
		# shellcheck disable=SC2207
		COMPREPLY=($(compgen -W "auto probes inferred" -- "$cur"))
		return 0
		;;
	--snapshot-policy)
		# shellcheck disable=SC2207
		COMPREPLY=($(compgen -W "all every: once-after:" -- "$cur"))
		return 0
		;;
	--trigger)
		# the metrics a rule starts with (docs/flight-recorder.md)
		# shellcheck disable=SC2207
		[[ $cmd == record ]] && COMPREPLY=($(compgen -W "link.drops link.retrans link.ce link.pause link.cnp queue.sojourn lost coll.slow rank.late job.exit job.timeout" -- "$cur"))
		return 0
		;;
	--profile)
		# shellcheck disable=SC2207
		[[ $cmd == record ]] && COMPREPLY=($(compgen -W "full always" -- "$cur"))
		return 0
		;;
	esac
	if [[ $cur == -* ]]; then
		opts=$(_fabtrace_options "$bin" "$cmd")
		# shellcheck disable=SC2207
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
		return 0
	fi
	case $cmd in
	report | info | export | merge | compare)
		# capture files, and directories to reach them
		# shellcheck disable=SC2207
		COMPREPLY=($(compgen -f -X '!*.ftr' -- "$cur") $(compgen -d -- "$cur"))
		;;
	history)
		# the flight recorder's directory
		# shellcheck disable=SC2207
		COMPREPLY=($(compgen -d -- "$cur"))
		;;
	esac
	return 0
}
complete -o filenames -F _fabtrace fabtrace
