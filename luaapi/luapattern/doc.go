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
// report the bounds. A panic raised by a [Replacer] given to Gsub passes
// through unchanged.
//
// All functions are safe for concurrent use; an [Iter] is not.
//
// # Differences from Lua 5.1
//
//   - A pattern may contain "\0" (Lua 5.1 ends a pattern at its first "\0",
//     except in string.find's plain search).
//   - A pattern more than 200 items deep (recursion of the matcher) fails
//     with "pattern too complex", as in Lua 5.2 (Lua 5.1 recurses on the C
//     stack until it overflows).
//   - Gmatch treats a leading '^' as an anchor: only a match at the start
//     of the subject counts (Lua 5.1 matches a literal '^'; gopher-lua
//     anchors).
//   - Find and FindPattern find nothing when init is past the end of the
//     subject (Lua 5.1 clamps init to the end, where an empty match is
//     found).
//   - A '%' at the end of a Gsub replacement string is dropped (Lua 5.1
//     writes the string's terminating "\0").
//   - A back-reference to a position capture ("()%1") panics (Lua 5.1 finds
//     no match).
package luapattern
