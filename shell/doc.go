// Package shell runs command hooks: shell commands that receive a HookInput
// as JSON on stdin and answer with an exit status and, optionally, a
// HookOutput as JSON on stdout.
//
// The package has three parts, used in this order by the engine:
//
//   - [SanitizeEnv] builds a hook's environment from the host's by dropping
//     the secrets (MONAD_*, names containing KEY, TOKEN, SECRET, PASSWORD,
//     CREDENTIAL, PASS or COOKIE, names ending in _PWD, AUTH name segments,
//     and values holding a URL with credentials).
//   - A [Runner] ([Exec] is the real one, [Run] its shortcut) runs one
//     [Command] as /bin/sh -c Line with a bounded run time and bounded
//     output, and reports what happened as a [Result].
//   - [Interpret] maps a Result to the hook contract, in one place: exit 2
//     is a deny (stderr is the reason), exit 0 with a JSON object on stdout
//     is a HookOutput, exit 0 with nothing on stdout means proceed, and
//     everything else is a failure.
//
// The package reads nothing from its own process: no environment variable,
// no working directory, no global state. The caller passes all of it in a
// Command, so every function is safe for concurrent use.
//
// # Processes
//
// A hook runs in a process group of its own (Setpgid). Its lifetime is the
// lifetime of its shell: as soon as the shell exits, whatever is left of the
// group (background jobs, daemons it forked) is killed with SIGKILL, and Run
// waits at most [ExitGrace] more for the output pipes to close, so a
// grandchild that keeps stdout open cannot hang Run; the shell's exit status
// stands. A process that left the group (setsid, or job control with
// set -m) and keeps a pipe open is abandoned after ExitGrace, not killed;
// its output after that is lost.
//
// When the hook overruns its timeout or its context is canceled, the whole
// group is killed with SIGKILL at once or, with [Exec.TermGrace] set, sent
// SIGTERM first and SIGKILL after the grace. A hook that prints more than
// its stdout cap is killed at once. Run therefore returns within Timeout +
// TermGrace + ExitGrace plus scheduling delays, whatever the hook does.
//
// # Failures
//
// Errors are classified for the audit by [Classify] and [IsTimeout], and by
// the sentinels [ErrTimeout], [ErrOutputTooLarge], [ErrStart], [ErrExit],
// [ErrSignal] and [ErrInvalidOutput], which errors.Is matches. A timeout
// also matches context.DeadlineExceeded, and a canceled context matches
// context.Canceled.
//
// The package is for Unix systems. Elsewhere it compiles, but a hook cannot
// be put in a process group of its own, so only the shell itself is killed.
package shell
