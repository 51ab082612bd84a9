---@meta _
-- LuaLS type definitions of the monad-hooks Lua API (luaapi).
-- Point workspace.library at this directory (or copy the file next to your
-- hooks) to get completion and diagnostics. Runtime: Lua 5.1 (gopher-lua).

---@alias HookEvent "SessionStart"|"BeforeTurn"|"BeforeModel"|"BeforeTool"|"ApprovalRequest"|"AfterTool"|"AfterModel"|"BeforeCompact"|"AfterCompact"|"BeforeSubagent"|"AfterSubagent"|"AfterTurn"|"SessionEnd"
---@alias HookDecision "allow"|"deny"|"ask"
---@alias HookOnError "deny"|"skip"

---A JSON value as handlers see it: objects and arrays are tables marked
---json.object / json.array, null is json.null.
---@alias JSONValue table|string|number|boolean|JSONNull

---@class JSONNull

---@class HookCaller
---@field kind "main"|"subagent"
---@field agentName? string

---@alias ToolKind "shell"|"read"|"write"|"edit"|"patch"|"delete"|"fetch"|"other"

---The engine's view of a tool call (beyond the seed's contract): what the
---tool does and the parts of its input guards read, found through the
---host's tool table. Absent (nil) for a tool the table does not know.
---@class HookToolView
---@field kind ToolKind
---@field command? string the command line (an argv joined with shell quoting)
---@field shell? "powershell"|"cmd" the dialect of command; absent for a POSIX shell
---@field paths string[] the files the tool reads, writes, edits or deletes
---@field contents string[] the texts it writes (contents, replacements, patches)
---@field urls string[] the URLs it reaches

---@class HookCompaction
---@field trigger? string
---@field tokens? number

---The HookInput. Absent fields are nil; the table is reused between calls,
---so do not keep it after the handler returns.
---@class HookInput
---@field event HookEvent
---@field sessionId? string
---@field cwd? string
---@field timestamp? string RFC 3339
---@field prompt? string BeforeTurn
---@field toolName? string BeforeTool, ApprovalRequest, AfterTool
---@field toolInput? table<string, JSONValue> BeforeTool, ApprovalRequest, AfterTool
---@field toolResult? JSONValue AfterTool
---@field toolCallId? string BeforeTool, ApprovalRequest, AfterTool: the host's id of the call (beyond the seed's contract)
---@field tool? HookToolView BeforeTool, ApprovalRequest, AfterTool: the engine's view of the call (beyond the seed's contract)
---@field ok? boolean AfterTool, AfterSubagent, AfterTurn
---@field error? string AfterTool, AfterSubagent, AfterTurn
---@field reason? "completed"|"aborted"|"error" AfterTurn, SessionEnd
---@field usage? JSONValue AfterTurn
---@field cost? number AfterTurn
---@field caller? HookCaller BeforeModel, AfterModel
---@field request? JSONValue BeforeModel
---@field response? string AfterModel, AfterTurn
---@field compaction? HookCompaction BeforeCompact, AfterCompact
---@field subagentName? string BeforeSubagent, AfterSubagent
---@field subagentResult? string AfterSubagent
---@field stopContinues? integer AfterTurn

---@class HookContinueWork
---@field reason string

---The HookOutput. Return nil to proceed. Unknown keys are ignored; a wrong
---type or an unknown decision is a hook failure.
---@class (exact) HookOutput
---@field decision? HookDecision
---@field reason? string
---@field additionalContext? string
---@field mutatedPrompt? string BeforeTurn
---@field modelOverride? string BeforeTurn
---@field mutatedToolInput? table<string, JSONValue> BeforeTool (an object)
---@field updatedToolOutput? JSONValue AfterTool
---@field mutatedRequest? JSONValue BeforeModel
---@field mutatedText? string AfterModel, AfterSubagent, AfterTurn
---@field continueWork? HookContinueWork AfterTurn

---@class HookSpec
---@field event HookEvent
---@field name? string names the hook in the audit (up to 100 bytes, unique in its script); default: the script's path and the hook's index in it
---@field matcher? string Go RE2 regular expression on the tool name (tool events only)
---@field kind? ToolKind|ToolKind[] only tools of this kind (or these kinds), per the host's tool table (tool events only); with matcher, both must match
---@field prefilter? ScanAny|ScanKeywords kind "shell" only: a call whose command (input.tool.command, up to 64 KiB) it finds nothing in proceeds without the handler, which must then return nil
---@field onError? HookOnError what a failure of the handler means; default: skipped
---@field timeoutMs? integer 1..60000; default 1000 (configurable by the host)
---@field handler fun(input: HookInput): HookOutput?

---Registers a hook. Valid only while the script loads.
---@param spec HookSpec
function hook(spec) end

---The script's parameters from configuration (read-only).
---@type table<string, any>
params = {}

---Logs through the host (log.info).
---@param ... any
function print(...) end

---Host modules, and the host's Lua libraries by name: read-only tables,
---shared by the scripts of a VM (the engine's are the stdlib's
---"monad.params", "monad.commands" and "monad.redact", each documented in
---its own file, stdlib/lib/*.lua).
---@overload fun(name: "re"): re
---@overload fun(name: "json"): json
---@overload fun(name: "shell"): shell
---@overload fun(name: "path"): path
---@overload fun(name: "log"): log
---@overload fun(name: "scan"): scan
---@param name string
---@return table
function require(name) end

---Go RE2 regular expressions (linear time; patterns cached by the host).
---@class re
re = {}

---Finds the first match at or after init (1-based, default 1).
---@param s string
---@param pattern string
---@param init? integer
---@return integer? start 1-based, nil when there is no match
---@return integer? finish inclusive
---@return string? ... the capture groups (nil for a group that did not take part)
function re.find(s, pattern, init) end

---Reports whether the pattern matches anywhere in s.
---@param s string
---@param pattern string
---@return boolean
function re.match(s, pattern) end

---Replaces matches (all, or the first n) with repl, where $1, ${name} refer to groups.
---@param s string
---@param pattern string
---@param repl string
---@param n? integer
---@return string result
---@return integer count
function re.gsub(s, pattern, repl, n) end

---Splits s around the matches (Go regexp.Split; n < 0 or nil: all).
---@param s string
---@param pattern string
---@param n? integer
---@return string[]
function re.split(s, pattern, n) end

---Returns the matched substrings (all, or the first n).
---@param s string
---@param pattern string
---@param n? integer
---@return string[]
function re.findall(s, pattern, n) end

---Escapes every RE2 metacharacter of s.
---@param s string
---@return string
function re.quote(s) end

---Keyword search in one pass over a text, whatever the number of keywords
---(compiled once per pool: build sets and rule sets at load time).
---@class scan
scan = {}

---A compiled keyword set (scan.keywords).
---@class ScanKeywords
local ScanKeywords = {}

---Compiles a keyword set. With opts.token, an RE2 character class such as
---"[a-z0-9_.-]", an occurrence counts only where it begins a token (at the
---start of the text or after a byte the class does not match).
---@param list string[] non-empty keywords
---@param opts? {token: string?}
---@return ScanKeywords
function scan.keywords(list, opts) end

---The keyword set of the host's guard rails (path.config()), lowercased:
---each file's base name, and each folder's name and ".lua" (its scripts);
---it finds nothing when there are none. A prefilter that holds it depends
---on the host's configuration without the script reading path.config().
---@return ScanKeywords
function scan.config_names() end

---Finds the occurrence that ends first (the longest of those that end at
---the same byte) at or after init (1-based, default 1).
---@param s string
---@param init? integer
---@return integer? start 1-based, nil when no keyword occurs
---@return integer? finish inclusive
---@return string? keyword
function ScanKeywords:find(s, init) end

---A compiled test (scan.any): keyword sets, RE2 expressions and other
---tests, one of which must find something.
---@class ScanAny
local ScanAny = {}

---Compiles a test. With opts.lower, its items search string.lower of the
---text; with opts.drop (up to 32 bytes), the text without those bytes
---(after lower).
---@param list (ScanKeywords|ScanAny|string)[] keyword sets, tests, RE2 expressions
---@param opts? {lower: boolean?, drop: string?}
---@return ScanAny
function scan.any(list, opts) end

---Whether one of the test's items finds something in s: a keyword of a
---set (where a token begins, for a set with token), a match of an
---expression, a nested test that is true.
---@param s string
---@return boolean
function ScanAny:test(s) end

---The Shannon entropy of s, in bits per byte (0 for "").
---@param s string
---@return number
function scan.entropy(s) end

---A compiled redaction rule set (scan.rules).
---@class ScanRules
local ScanRules = {}

---Compiles the redaction rules of monad.redact (stdlib/lib/redact.lua
---documents the fields: kw, ikw, words, rx, at, bound, back, ahead, custom,
---name, value, lua).
---@param rules table[]
---@return ScanRules
function scan.rules(rules) end

---Finds the candidate values of the rules in s, before any check of their
---value: spans is the flat list start1, end1, rule1, start2, ...; wanted
---lists the rules marked lua = true whose words occur in s.
---@param s string
---@return integer[] spans
---@return integer[] wanted
function ScanRules:candidates(s) end

---JSON with null, empty array and empty object fidelity.
---@class json
---@field null JSONNull the JSON null sentinel (truthy!)
json = {}

---Encodes a value; object keys are sorted. An unmarked empty table is an object.
---@param v any
---@return string
function json.encode(v) end

---Decodes a document: null is json.null, arrays and objects are marked tables.
---@param s string
---@return any
function json.decode(s) end

---Marks t (or a new table) as a JSON array and returns it.
---@param t? table
---@return table
function json.array(t) end

---Marks t (or a new table) as a JSON object and returns it.
---@param t? table
---@return table
function json.object(t) end

---@class ShellRedirect
---@field op string
---@field target string
---@field fd? string
---@field body? string here-document text

---@class ShellCommand
---@field words string[]
---@field op ""|";"|"&&"|"||"|"|"|"|&"|"&" the operator after the command
---@field redirects ShellRedirect[]
---@field assigns table<string, string> NAME=value words before the command name
---@field depth integer 0 at the top level, one more per $( ), backticks, <( ), ( ), { } or sh -c/eval string
---@field via string what holds a nested command: "$(", "`", "<(", ">(", "(", "{" or a command name; "" at depth 0
---@field func string the function whose definition holds the command (NAME () BODY), or ""
---@field forkloop boolean the command is run in the background by a loop that never ends (while true, until false, for ((;;)))
---@field malformed boolean the command's text was not well formed (it is listed with the words read)
---@field written? string PowerShell and cmd only: the name as written (words[1] is normalised: rd is Remove-Item, git.exe is git)
---@field cmdlet? boolean PowerShell and cmd only: words[1] is a cmdlet
---@field invoke? ""|"&"|"." PowerShell only: run through the call operator or dot-sourced
---@field expr? boolean PowerShell only: an expression ('text', $x, (...)), not a command
---@field dialect? "powershell"|"cmd" PowerShell and cmd only: how the command was read

---Shell command lines.
---@class shell
shell = {}

---Splits a command line into words (quotes and escapes removed).
---@param cmd string
---@return string[] words
---@return string? err set when a quote is unterminated
function shell.split(cmd) end

---Lists the simple commands of a script, including those inside $(), ``, subshells, groups, sh -c and eval.
---A malformed line is parsed as far as it goes (see ShellCommand.malformed); a line beyond the parser's
---bounds (nesting, command count, size) raises an error.
---With dialect "powershell" or "cmd", a PowerShell or cmd.exe line (package shell/pwsh): blocks, subexpressions,
---cmd /c and powershell -Command are descended into; names are normalised.
---@param cmd string
---@param dialect? "sh"|"powershell"|"cmd"
---@return ShellCommand[] commands
---@return string? err set when a command is malformed (the commands are still returned)
function shell.commands(cmd, dialect) end

---Whether a line sent as POSIX names a command only PowerShell or cmd.exe runs (Remove-Item, rd, del, cmd, ...).
---@param line string
---@return boolean
function shell.likely(line) end

---Strips wrappers (sudo, env, nohup, time, nice, timeout, xargs, exec, command, builtin, stdbuf, ionice, doas, ...).
---@param words string[]
---@return string[]
function shell.unwrap(words) end

---Slash-separated paths.
---@class path
path = {}

---@param p string
---@return string
function path.clean(p) end

---@param ... string
---@return string
function path.join(...) end

---Expands ~ and $HOME with the host's home directory.
---@param p string
---@return string
function path.expand(p) end

---The project (sandbox) root the host gives, "" when it gives none.
---@return string
function path.root() end

---The files and folders the host's guards are configured by (configuration
---files, scripts, folders of scripts, which end in "/"), absolute: a new
---list on every call.
---@return string[]
function path.config() end

---Matches a glob (* ? [...] per segment, ** across segments).
---@param glob string
---@param p string
---@return boolean
function path.match(glob, p) end

---@param p string
---@return string
function path.base(p) end

---@param p string
---@return string
function path.dir(p) end

---@param p string
---@return string
function path.ext(p) end

---@param p string
---@return boolean
function path.isabs(p) end

---Logging to the host; messages are attached to the audit.
---@class log
log = {}

---@param msg any
---@param fields? table<string, any>
function log.info(msg, fields) end

---@param msg any
---@param fields? table<string, any>
function log.warn(msg, fields) end

---@param msg any
---@param fields? table<string, any>
function log.error(msg, fields) end

---The os subset: time, clock and date (on the host's clock).
---@class oslib
---@field time fun(t?: table): integer
---@field clock fun(): number seconds since the process started (monotonic)
---@field date fun(format?: string, t?: integer): string|table
os = {}
