# bash completion for allocsim (installed as share/bash-completion/completions/allocsim; README "Shell
# completion"). To try it from a checkout: `source tools/completion/allocsim.bash`.
#
# Every word list comes from the binary being completed, at completion time, so none can go stale:
#   commands              the `allocsim COMMAND ...` lines of `allocsim --help`, plus `help`
#   flags of a command    the option lines of `allocsim COMMAND --help` (`swarm merge` and `findings diff`:
#                         their own --help), as Boost.Program_options prints them
#   --strategy, --mutant, --until
#                         the first column of `allocsim list strategies|mutants|invariants`
#   list KIND, help CMD   the kinds `allocsim list --help` prints; the commands
#   trace, corpus, swarm, findings
#                         their actions (explain order; list show prune; merge; diff)
#   scenario and report arguments: folders and *.json files; output flags: any file.
# The binary is the command word as typed (a path like build/tools/allocsim works too; ~/ is expanded).
# Needs nothing from the bash-completion package (plain compgen), which only loads this file on demand.

_allocsim_words() {  # first column of `allocsim list KIND`
  "$1" list "$2" 2>/dev/null | while read -r w _; do printf '%s\n' "$w"; done
}

_allocsim_flags() {  # BIN ARGS...: the long flags of `BIN ARGS... --help`; with ARG=1 only those taking a value
  local want_arg=$1
  shift
  if [ "$want_arg" = 1 ]; then
    "$@" --help 2>/dev/null | sed -nE 's/^  (-[A-Za-z0-9] \[ )?(--[A-Za-z0-9-]+)( \])? arg.*/\2/p'
  else
    "$@" --help 2>/dev/null | sed -nE 's/^  (-[A-Za-z0-9] \[ )?(--[A-Za-z0-9-]+).*/\2/p'
  fi
}

_allocsim_json_args() {  # folders and *.json files matching $cur
  local IFS=$'\n'
  COMPREPLY=($(compgen -d -- "$cur") $(compgen -f -X '!*.json' -- "$cur"))
  # A folder matched by both lists once.
  COMPREPLY=($(printf '%s\n' "${COMPREPLY[@]}" | LC_ALL=C sort -u))
  compopt -o filenames 2>/dev/null
}

_allocsim() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
  local bin=${COMP_WORDS[0]}
  [[ $bin == "~/"* ]] && bin=$HOME/${bin#"~/"}
  COMPREPLY=()

  if [ "$COMP_CWORD" -eq 1 ]; then
    local cmds
    cmds="$("$bin" --help 2>/dev/null | sed -nE 's/^  allocsim ([a-z]+)( .*)?$/\1/p' | LC_ALL=C sort -u) help"
    if [[ $cur == -* ]]; then
      COMPREPLY=($(compgen -W "--help --version" -- "$cur"))
    else
      COMPREPLY=($(compgen -W "$cmds" -- "$cur"))
    fi
    return 0
  fi

  local cmd=${COMP_WORDS[1]} sub="" actions=""
  case $cmd in
    trace) actions="explain order" ;;
    corpus) actions="list show prune" ;;
    swarm) actions="merge" ;;
    findings) actions="diff" ;;
  esac
  [ "$COMP_CWORD" -gt 2 ] && sub=${COMP_WORDS[2]}
  local help_of=("$bin" "$cmd")
  [[ ($cmd == swarm && $sub == merge) || ($cmd == findings && $sub == diff) ]] && help_of+=("$sub")

  # The value of a flag.
  case $prev in
    --strategy)
      COMPREPLY=($(compgen -W "$(_allocsim_words "$bin" strategies)" -- "$cur"))
      return 0
      ;;
    --mutant)
      COMPREPLY=($(compgen -W "$(_allocsim_words "$bin" mutants)" -- "$cur"))
      return 0
      ;;
    --until)
      COMPREPLY=($(compgen -W "$(_allocsim_words "$bin" invariants)" -- "$cur"))
      return 0
      ;;
    --check-invariants)
      COMPREPLY=($(compgen -W "incremental full" -- "$cur"))
      return 0
      ;;
    --reduction)
      COMPREPLY=($(compgen -W "dpor states symmetry none" -- "$cur"))
      return 0
      ;;
    -o | --out | --corpus | --checkpoint | --resume | --trace-out | --report-json | --junit | --report-html | \
      --perfetto | --fingerprints | --record)
      compopt -o filenames 2>/dev/null
      local IFS=$'\n'
      COMPREPLY=($(compgen -f -- "$cur"))
      return 0
      ;;
    --*)
      # Any other flag that takes a value (a number, a schedule, an order block): nothing to offer.
      if _allocsim_flags 1 "${help_of[@]}" | grep -qxF -- "$prev"; then
        return 0
      fi
      ;;
  esac

  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$(_allocsim_flags 0 "${help_of[@]}" | LC_ALL=C sort -u)" -- "$cur"))
    return 0
  fi
  case $cmd in
    list)
      [ "$COMP_CWORD" -eq 2 ] &&
        COMPREPLY=($(compgen -W "$("$bin" list --help 2>/dev/null | sed -nE 's/^  ([a-z]+) .*/\1/p')" -- "$cur"))
      return 0
      ;;
    help)
      [ "$COMP_CWORD" -eq 2 ] &&
        COMPREPLY=($(compgen -W "$("$bin" --help 2>/dev/null | sed -nE 's/^  allocsim ([a-z]+)( .*)?$/\1/p' | LC_ALL=C sort -u)" -- "$cur"))
      return 0
      ;;
  esac
  if [ -n "$actions" ] && [ "$COMP_CWORD" -eq 2 ]; then
    COMPREPLY=($(compgen -W "$actions" -- "$cur"))
    # swarm's first argument may also be a flag; nothing else is positional there.
    return 0
  fi
  case $cmd in
    run | replay | shrink | sweep | merge | trace | corpus | findings | selfcheck) _allocsim_json_args ;;
    swarm) [ "$sub" = merge ] && { compopt -o filenames 2>/dev/null; local IFS=$'\n'; COMPREPLY=($(compgen -d -- "$cur")); } ;;
  esac
  return 0
}

complete -F _allocsim allocsim
