// Package luapattern is Lua 5.1's pattern matcher (lstrlib.c) in pure Go,
// over Go strings: the engine behind string.find, string.match,
// string.gmatch and string.gsub in the Lua hooks, usable on its own.
//
// gopher-lua's own matcher runs inside one VM instruction, so it cannot be
// interrupted: `string.find(("a"):rep(100).."c", ".-.-.-b")` backtracks for
// hundreds of milliseconds and longer subjects for hours, and its gsub
// copies the whole buffer per match (quadratic). This port counts its work
// in steps (one per pattern item tried at a subject position, one per
// character a repetition or %b scans), calls [Options.Stop] every
// [CheckEvery] steps so that its caller can interrupt it, can bound the
// steps of a call ([Options.MaxSteps]), builds gsub results in one buffer
// (linear in the result) and can bound their size ([Options.MaxSize]).
//
// Positions are 0-based byte offsets into the subject; a match or capture
// is the half-open range [Start, End). Captures are returned as ranges (see
// [Capture]); turning them into the values a Lua function returns is the
// caller's job (package luaapi does it).
//
// Errors: a malformed pattern or a reference to a capture that does not
// exist is a *[PatternError] whose message is Lua 5.1's ("malformed pattern
// (ends with '%')", "invalid capture index", ...); a call interrupted by
// Options.Stop returns Stop's error; [ErrTooManySteps] and [ErrTooLarge]
// report the bounds. Nothing panics, except that a panic raised by the
// function given to GsubFunc passes through unchanged.
//
// All functions are safe for concurrent use; an [Iter] is not.
//
// # Differences from Lua 5.1
//
// The semantics are Lua 5.1.5's, checked against its recorded output
// (luaapi's TestPatternsMatchLua51) and against stock gopher-lua (FuzzPatterns,
// where gopher-lua follows 5.1). In particular, as in Lua 5.1: a
// back-reference to a position capture ("()%1") finds no match; init past
// the end of the subject is clamped to the end; a '%' ending a Gsub
// replacement writes a "\x00"; Gmatch treats a leading '^' as an ordinary
// character. The differences are:
//
//   - A pattern may contain "\x00" (Lua 5.1 ends a pattern at its first
//     "\x00", except in string.find's plain search).
//   - A pattern more than 200 items deep (recursion of the matcher) fails
//     with "pattern too complex", as in Lua 5.2 (Lua 5.1 recurses on the C
//     stack until it overflows).
//   - The bounds of Options (Stop, MaxSteps, MaxSize), which Lua 5.1 does
//     not have.
package luapattern
