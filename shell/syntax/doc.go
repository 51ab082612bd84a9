// Package syntax parses shell command lines the way a POSIX shell or
// bash reads them, without running or expanding anything, so that guards
// can see which commands a line runs. It is the project's one home for that
// knowledge: native Go guards use it directly, and it backs the Lua host
// module shell (require("shell")) that the stdlib packs use. It imports only
// the standard library.
//
// Four functions make the API:
//
//   - Commands lists every simple command of a line with its words (quotes
//     and backslashes resolved, expansions kept as written), the operator
//     that follows it, its redirections (here-document bodies included) and
//     its NAME=value assignments; it descends into substitutions, groups,
//     control structures, function bodies and the command strings of sh -c,
//     eval, su -c, ssh, watch, trap and the like, within the bounds of
//     Options.
//   - Split returns the words of a line (operators as words of their own).
//   - Unwrap strips wrappers (sudo, env, nohup, timeout, xargs, ...) from a
//     command's words and returns the command that is effectively run.
//   - Join quotes an argv (a command given as a list of words) into the one
//     line a shell would read, so that it is checked as a whole.
//
// Malformed input (an unclosed quote, a missing fi) is parsed as far as it
// goes: the words seen are kept and the commands are flagged, never
// dropped. Every input is parsed in time and memory linear in its length
// (with the bounds of Options); the tests prove it by counting the
// parser's steps on inputs built to defeat it.
//
// All functions are pure: they keep no state, and are safe for concurrent
// use.
//
// The parser is hand-written rather than built on mvdan.cc/sh because it
// must survive any input in linear time and bounded depth (inputs exist
// that overflow mvdan's stack or take it seconds), must flag rather than
// reject malformed lines, and descends into the strings of sh -c and eval.
// Its tests use mvdan.cc/sh as an oracle on well-formed lines
// (oracle_test.go says what is compared).
//
// # What is not done
//
// Nothing is expanded: $VAR, ${VAR}, globs, braces and ~ stay as written,
// and the output of a substitution is unknown, so "R=rm; $R -rf /" lists
// the command $R -rf / after the assignment R=rm; the packs resolve such
// variables themselves from Command.Assigns and from export/declare words.
// Aliases are not expanded. Commands inside one-line programs (python -c,
// node -e) and inside docker exec or kubectl exec are not listed.
//
// # Wiring
//
// The Lua host module shell (require("shell") in Lua hooks) is a thin
// layer over Commands, Split and Unwrap with the default Options; package
// luaapi builds its tables and documents their shape.
package syntax
