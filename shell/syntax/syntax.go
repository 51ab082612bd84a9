package syntax

import (
	"errors"
	"fmt"
)

// Defaults of Options.
const (
	DefaultMaxDepth    = 8
	DefaultMaxCommands = 10000
	DefaultMaxBytes    = 1 << 20

	// maxDepthCap bounds Options.MaxDepth, so that no option makes the
	// parser's recursion unbounded.
	maxDepthCap = 64
	// maxNest bounds the grammatical nesting (compound commands within
	// compound commands) that is parsed as such; deeper keywords are read
	// as if absent, so the commands inside are still listed.
	maxNest = 200
)

// Errors of Commands, each returned (test with errors.Is) with the
// commands found: they mean that part of the line was not parsed.
var (
	// ErrTooDeep is returned when a command substitution, group or command
	// string lies deeper than Options.MaxDepth; it was not parsed (a group
	// is read as if its parentheses or braces were absent).
	ErrTooDeep = errors.New("syntax: nesting deeper than the depth limit")
	// ErrTooMany is returned when the line has more than
	// Options.MaxCommands commands; the parse stopped at the limit.
	ErrTooMany = errors.New("syntax: more commands than the limit")
	// ErrTooLong is returned when the line is longer than Options.MaxBytes
	// (only its first MaxBytes bytes were parsed), or when the command
	// strings parsed again (sh -c, eval, ...) add up to more than MaxBytes.
	ErrTooLong = errors.New("syntax: input longer than the size limit")
	// ErrStopped is returned when Options.Stop (or SplitStop's stop)
	// reported true: the parse ended early.
	ErrStopped = errors.New("syntax: stopped by the caller")
)

// ErrUnterminated is returned by Split, with the words it read, when a
// quote or substitution is not closed.
var ErrUnterminated = errors.New("syntax: unterminated quote or substitution")

// Options bounds the work of Commands. The zero value means the defaults.
type Options struct {
	// MaxDepth is the deepest nesting parsed: a command inside $(...),
	// backticks, <(...), ( ), { } or a command string (sh -c, eval, ssh,
	// ...) is one deeper than the command that holds it. 0 means
	// DefaultMaxDepth; values above 64 mean 64.
	MaxDepth int
	// MaxCommands bounds the number of commands returned. 0 means
	// DefaultMaxCommands.
	MaxCommands int
	// MaxBytes bounds the length of the line parsed, and separately the
	// total length of the command strings parsed again. 0 means
	// DefaultMaxBytes.
	MaxBytes int
	// Stop, when set, is polled about every thousand steps of the parse
	// (a step reads at least one byte); once it returns true the parse
	// ends and ErrStopped is returned with the commands found. It lets a
	// caller with a deadline bound the time of a long line.
	Stop func() bool
}

func (o Options) withDefaults() Options {
	if o.MaxDepth <= 0 {
		o.MaxDepth = DefaultMaxDepth
	}
	if o.MaxDepth > maxDepthCap {
		o.MaxDepth = maxDepthCap
	}
	if o.MaxCommands <= 0 {
		o.MaxCommands = DefaultMaxCommands
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	return o
}

// Redirect is one redirection of a command.
type Redirect struct {
	// Op is the operator without its file descriptor: one of
	// ">", ">>", ">|", ">&", "&>", "&>>", "<", "<>", "<&", "<<", "<<-", "<<<".
	// "2>&1" is Op ">&" with Fd "2" and Target "1".
	Op string
	// Fd is the file descriptor written before the operator ("2" in
	// "2>/dev/null", "{fd}" in "{fd}>file"), or "" when there is none.
	Fd string
	// Target is the word after the operator, quotes resolved: a file, a
	// descriptor ("1" in ">&1", "-" in ">&-"), a here-document's
	// delimiter, or a here-string's text (<<<).
	Target string
	// Body is the text of a here-document (<< and <<-), every line with its
	// newline (<<- strips leading tabs); "" for other operators. Bodies
	// are not expanded, but the commands of substitutions in the body of a
	// document whose delimiter is unquoted are listed, since the shell runs
	// them.
	Body string

	doc *hereDoc // the document whose body is filled in after the parse
}

// Command is one simple command of a command line.
type Command struct {
	// Words are the command's words with quotes, backslashes, line
	// continuations and $'...' resolved: r\m, "rm" and 'rm' are all rm,
	// 'a b' is one word. Expansions are kept as written: $VAR, ${VAR:-x},
	// $(...), `...`, $((...)), <(...) and globs appear verbatim (the
	// commands inside substitutions are listed separately).
	Words []string
	// Op is the operator after the command: ";" (also for a newline and
	// a case item's ;;), "&&", "||", "|", "|&", "&", or "" for the last
	// command of its list (the line, a substitution, a command string).
	// It relates the command to the next command of the same list; the
	// last command of a compound command ({ }, ( ), if, while, ...) carries
	// the operator after the compound, so "{ a; b; } | c" reads as b | c.
	Op string
	// Redirects are the command's redirections, in order, followed by
	// those of the compound commands that enclose it.
	Redirects []Redirect
	// Assigns are the NAME=value (and NAME+=value) words before the
	// command name, values as written with quotes resolved; nil when
	// there are none. A command of assignments only (X=1) has no Words.
	// A for or select loop is listed as a command without Words whose
	// Assigns bind the loop variable to the first value of its list.
	Assigns map[string]string
	// Depth is 0 at the top level of the line, and one more inside each
	// $(...), `...`, <(...), >(...), ( ), { } and command string
	// (sh -c, eval, ssh host CMD, ...). The bodies of if, while, until,
	// for and case keep the depth of their keyword; a function's body is
	// a group ({ } or ( )), one deeper than its definition.
	Depth int
	// Via tells what holds a command of Depth > 0: "$(", "`", "<(", ">(",
	// "(" or "{" for those constructs, or the name of the command whose
	// argument it was parsed from: a shell ("bash", "sh", ...), "su",
	// "runuser", "eval", "ssh", "watch", "trap", "find" (-exec), "script",
	// "flock" or "sg". It is "" at depth 0.
	Via string
	// Func is the name of the function whose definition holds the
	// command (NAME () BODY or function NAME BODY; the innermost one), or
	// "" outside function bodies. The packs use it to check what a call
	// of the function runs.
	Func string
	// ForkLoop is set for a command run in the background (&) in the body
	// of a loop that never ends on its own (while true, while :, until
	// false, for ((;;)), or a loop nested in one): it is started again and
	// again, without bound.
	ForkLoop bool
	// Malformed is set when the command's text was not well formed (an
	// unclosed quote, substitution or compound command, a here-document
	// without its delimiter line, a stray operator or keyword): the
	// command is still listed with the words that were read.
	Malformed bool

	bg bool // the command was run in the background (its Op was "&")
}

// String returns the command's words joined by spaces, followed by its
// operator, for diagnostics.
func (c Command) String() string {
	s := fmt.Sprintf("%q", c.Words)
	if c.Op != "" {
		s += " " + c.Op
	}
	return s
}

// Commands returns every simple command of a shell command line, in text
// order, except that the commands found inside a command's words (command
// and process substitutions, the strings of sh -c, eval, ssh and the like,
// find -exec) follow the whole pipeline that holds them, so that the
// commands of a pipeline stay adjacent. It recurses into $(...), `...`,
// <(...), >(...), ( ), { }, if/while/until/for/case bodies, function
// definitions, and the command arguments of shells run with -c (also
// behind wrappers: sudo sh -c, env X=1 bash -c, xargs sh -c), eval, su -c,
// runuser -c, ssh HOST CMD, watch, trap, script -c, flock -c, sg and find
// -exec. Keywords are not commands; the commands inside are.
//
// Malformed input is parsed as far as it goes and flagged on the commands
// (Command.Malformed); it is never an error. The error is non-nil only when
// a limit of opts cut the parse (ErrTooDeep, ErrTooMany, ErrTooLong); the
// commands found are returned with it.
//
// Commands is a pure function: it is safe for concurrent use, and the
// result shares no memory with other calls.
func Commands(line string, opts Options) ([]Command, error) {
	cmds, _, err := commands(line, opts)
	return cmds, err
}

// commands is Commands, also returning the steps the parse took (see
// state.steps).
func commands(line string, opts Options) ([]Command, int, error) {
	o := opts.withDefaults()
	st := &state{opts: o, budget: o.MaxBytes, scan: scanBudget(len(line))}
	if len(line) > o.MaxBytes {
		line = line[:o.MaxBytes]
		st.fail(ErrTooLong)
	}
	p := &parser{st: st, src: line, out: make([]Command, 0, 4)}
	p.parseList(0)
	p.finish()
	out := p.out
	if st.docs {
		fillDocs(st, out)
	}
	return out, st.steps, st.err
}

// fillDocs copies the here-document bodies, read after their commands were
// listed, into the redirections.
func fillDocs(st *state, cmds []Command) {
	for i := range cmds {
		st.steps += 1 + len(cmds[i].Redirects)
		for j := range cmds[i].Redirects {
			r := &cmds[i].Redirects[j]
			if r.doc != nil {
				r.Body = r.doc.body
				r.doc = nil
			}
		}
	}
}

// Split returns the words of a command line as Commands reads them (quotes
// and backslashes resolved, expansions kept as written, comments dropped),
// with each operator as a word of its own: ";" (also for a newline), "&&",
// "||", "|", "|&", "&", ";;", "(", ")", and redirection operators with
// their file descriptor ("2>&" then "1" for 2>&1). Here-document bodies are
// not read. When a quote or substitution is not closed, Split returns the
// words read and ErrUnterminated. Split is safe for concurrent use.
func Split(line string) ([]string, error) {
	words, _, err := split(line, nil)
	return words, err
}

// SplitStop is Split polling stop (when not nil) as Options.Stop is
// polled: once it returns true, SplitStop returns the words read and
// ErrStopped.
func SplitStop(line string, stop func() bool) ([]string, error) {
	words, _, err := split(line, stop)
	return words, err
}

// split is SplitStop, also returning the steps it took (see state.steps).
func split(line string, stop func() bool) ([]string, int, error) {
	st := &state{opts: Options{Stop: stop}.withDefaults(), split: true, scan: scanBudget(len(line))}
	p := &parser{st: st, src: line}
	words := p.splitWords(true)
	if len(words) == 0 {
		words = nil
	}
	if st.err != nil {
		return words, st.steps, st.err
	}
	if p.bad {
		return words, st.steps, ErrUnterminated
	}
	return words, st.steps, nil
}

// state is shared by the parsers of one call (the line's, and those of the
// substitutions and strings parsed from it).
type state struct {
	opts   Options
	ncmd   int
	budget int      // bytes left for command strings parsed again
	nest   int      // current grammatical nesting
	scan   int      // bytes left for the (( look-ahead
	err    error    // the first limit hit
	full   bool     // MaxCommands reached: stop
	docs   bool     // a here-document was seen
	split  bool     // Split: list no commands
	words  []string // backing store of the commands' words

	// steps counts the work of the call: one per round of every loop of
	// the grammar, per byte scanned (also by look-aheads that do not
	// consume), and per command or word copied. No unit hides more than
	// a bounded amount of work, so steps growing linearly with the input
	// proves the parse linear; the tests check that on inputs built to
	// defeat it (limits_test.go), without timing anything.
	steps int
	polls int // steps since Options.Stop was last polled
}

// stopPoll is how many steps pass between two polls of Options.Stop.
const stopPoll = 1024

// stopped polls Options.Stop every stopPoll calls; once it reported true,
// the parse is full (every loop ends) and the error is ErrStopped.
func (s *state) stopped() bool {
	if s.opts.Stop == nil || s.full {
		return s.full
	}
	s.polls++
	if s.polls < stopPoll {
		return false
	}
	s.polls = 0
	if s.opts.Stop() {
		s.fail(ErrStopped)
		s.full = true
	}
	return s.full
}

// keepWords copies words into the call's backing store and returns the
// copy, which no later append can reach.
func (s *state) keepWords(words []string) []string {
	if len(words) == 0 {
		return nil
	}
	if cap(s.words)-len(s.words) < len(words) {
		s.words = make([]string, 0, max(2*cap(s.words), len(words), 8))
	}
	s.steps += len(words)
	start := len(s.words)
	s.words = append(s.words, words...)
	return s.words[start:len(s.words):len(s.words)]
}

// scanBudget is the look-ahead budget of a call on a line of n bytes.
func scanBudget(n int) int { return 8*n + 64<<10 }

func (s *state) fail(err error) {
	if s.err == nil {
		s.err = err
	}
}
