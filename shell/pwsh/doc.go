// Package pwsh splits PowerShell and cmd.exe command lines into the
// commands they run, without running or expanding anything, so that guards
// can see what a Windows shell line does: the PowerShell counterpart of
// package shell/syntax (which reads POSIX shells). It imports only the
// standard library.
//
// [Commands] reads a PowerShell line: statements separated by ;, newlines,
// |, && and ||; '...' (with ” for a quote) and "..." (with backtick
// escapes) strings, typographic quotes included; the backtick escape and
// line continuation; # and <# #> comments; the & call operator and .
// dot-sourcing; the commands inside script blocks {...}, parentheses,
// subexpressions $(...), array @(...) and hash @{...} literals (so that
// ForEach-Object { Remove-Item $_ } is seen); assignments ($x = gci);
// control keywords (if, foreach, try, function, ...); redirections (>, >>,
// 2>, *>, 2>&1); and arguments separated by unquoted commas as separate
// words. It descends into cmd /c and cmd /k (read with [CmdCommands]),
// powershell and pwsh -Command (and -EncodedCommand, decoded), and
// Invoke-Expression of a literal string.
//
// [CmdCommands] reads a cmd.exe line: commands separated by &, &&, ||, |
// and newlines, "..." quoting, the ^ escape, ( ) groups, @ before a
// command, redirections; %VAR% stays as written.
//
// Every command gets a normalised name ([Command.Name]): a PowerShell alias
// or cmd.exe built-in is the cmdlet it runs (rm, ri, del, erase, rd and
// rmdir are Remove-Item; gc, cat and type Get-Content; iwr, curl and wget
// Invoke-WebRequest as in Windows PowerShell 5.1; ...), a cmdlet is in its
// canonical case, and a program is its lower-case base name without .exe,
// so that C:\Program Files\Git\cmd\git.exe is git and the rules written for
// POSIX programs apply to it. [Likely] tells whether a line that a host
// sent as a POSIX command holds a name that only PowerShell or cmd.exe
// would run (a host on Windows may run its generic shell tool through
// PowerShell).
//
// Malformed input (an unclosed quote or block) is read as far as it goes
// and its commands are flagged (Command.Malformed), never dropped. The work
// is bounded by [Options] (length, nesting depth, number of commands, the
// total length of command strings read again) and linear in the input;
// past a bound an error is returned with the commands found. Nothing
// panics.
//
// # What is not done
//
// Nothing is evaluated: environment variables ($env:USERPROFILE,
// %USERPROFILE%), splatting (@params) and the values of expressions stay as
// written; a variable assigned one value on the line ($p = 'C:\x', a
// here-string) is put in where it is used ($p, $p\sub), and aliases defined
// on the line (Set-Alias) are followed, but loop variables (foreach) and
// values built by expressions are not. Parameters are not bound to a
// cmdlet's parameter set, so an abbreviation (-Rec, -fo) is for the caller
// to resolve. -EncodedCommand is decoded, other encodings
// ([Convert]::FromBase64String) are not.
//
// All functions are pure and safe for concurrent use.
package pwsh
