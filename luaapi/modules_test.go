package luaapi

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/monad-hooks/monad-hooks/events"
	"github.com/stretchr/testify/require"
)

// evalLua runs body as a handler and returns its additionalContext.
func evalLua(t *testing.T, opts Options, body string) string {
	t.Helper()
	p := newTestPool(t, opts, "m.lua", "local re, json, shell, path, log = require('re'), require('json'), require('shell'), require('path'), require('log')\n"+
		"local function show(...) local t = {} for i = 1, select('#', ...) do t[#t + 1] = tostring((select(i, ...))) end return table.concat(t, ',') end\n"+
		"hook{event='BeforeTool', handler=function(input)\n"+body+"\nend}")
	out, err := p.Call(context.Background(), 0, bashInput("x"))
	if err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	return out.AdditionalContext
}

func TestModules(t *testing.T) {
	cases := []struct{ body, want string }{
		// re
		{`return { additionalContext = show(re.find("hello world", "o w")) }`, "5,7"},
		{`return { additionalContext = show(re.find("key=val", "(\\w+)=(\\w+)")) }`, "1,7,key,val"},
		{`return { additionalContext = show(re.find("ab", "(x)?b")) }`, "2,2,nil"},
		{`return { additionalContext = show(re.find("abcabc", "b", 3)) }`, "5,5"},
		{`return { additionalContext = show(re.find("abc", "z")) }`, "nil"},
		{`return { additionalContext = show(re.match("rm -rf /", "rm\\s+-rf"), re.match("ls", "rm")) }`, "true,false"},
		{`return { additionalContext = show(re.gsub("key=abc123 key=x", "key=(\\w+)", "key=[$1]")) }`, "key=[abc123] key=[x],2"},
		{`return { additionalContext = show(re.gsub("aaa", "a", "b", 2)) }`, "bba,2"},
		{`return { additionalContext = table.concat(re.split("a, b,c", ",\\s*"), "|") }`, "a|b|c"},
		{`return { additionalContext = table.concat(re.split("a,b,c", ",", 2), "|") }`, "a|b,c"},
		{`return { additionalContext = table.concat(re.findall("a1b22c333", "\\d+"), "|") }`, "1|22|333"},
		{`return { additionalContext = re.quote("a.b*c") }`, `a\.b\*c`},
		{`return { additionalContext = show(pcall(re.find, "x", "(")) }`, "false,m.lua:4: bad RE2 pattern: missing closing ): `(`"},
		// json
		{`return { additionalContext = json.encode({ b = 1, a = { 1, 2.5, "x", true, json.null }, e = {}, ea = json.array{} }) }`, `{"a":[1,2.5,"x",true,null],"b":1,"e":{},"ea":[]}`},
		{`local v = json.decode('{"a":[1,{}],"n":null,"s":"\\u00e9"}') return { additionalContext = show(#v.a, v.n == json.null, v.s, getmetatable(v), getmetatable(v.a), json.encode(v)) }`, `2,true,é,json.object,json.array,{"a":[1,{}],"n":null,"s":"é"}`},
		{`return { additionalContext = show(pcall(json.decode, "{")) }`, "false,m.lua:4: json.decode: unexpected EOF"},
		{`return { additionalContext = show(pcall(json.encode, { f = print })) }`, "false,m.lua:4: json.encode: cannot convert a function to JSON"},
		{`return { additionalContext = show(tostring(json.null), json.encode(json.null), json.encode("a\"b"), json.encode(1e300)) }`, `null,null,"a\"b",1e+300`},
		{`local t = json.object({ [1] = 2 }) return { additionalContext = show(pcall(json.encode, t)) }`, "false,m.lua:4: json.encode: object key 1 is not a string"},
		// shell
		{`return { additionalContext = table.concat(shell.split("r\\m -rf '/'"), "|") }`, "rm|-rf|/"},
		{`local w, err = shell.split("echo 'x") return { additionalContext = show(#w, err) }`, "2,syntax: unterminated quote or substitution"},
		{`local out = {} for _, c in ipairs(shell.commands("sudo bash -c 'rm -rf /' && echo $(id) > /dev/sda")) do out[#out + 1] = table.concat(c.words, " ") .. "[" .. c.op .. "]" .. #c.redirects end return { additionalContext = table.concat(out, ";") }`,
			"sudo bash -c rm -rf /[&&]0;rm -rf /[]0;echo $(id)[]1;id[]0"},
		{`local c = shell.commands("X=1 cmd 2>&1")[1] return { additionalContext = show(c.assigns.X, c.redirects[1].op, c.redirects[1].fd, c.redirects[1].target) }`, "1,>&,2,1"},
		{`return { additionalContext = table.concat(shell.unwrap(shell.split("sudo -u root env X=1 nice -n 5 rm -rf /")), " ") }`, "rm -rf /"},
		// path
		{`return { additionalContext = show(path.clean("/a/../b//c/"), path.join("a", "b/../c", "d"), path.base("/x/y.txt"), path.dir("/x/y.txt"), path.ext("y.tar.gz"), path.isabs("/x"), path.isabs("x")) }`, "/b/c,a/c/d,y.txt,/x,.gz,true,false"},
		{`return { additionalContext = show(path.expand("~"), path.expand("~/x"), path.expand("$HOME/y"), path.expand("${HOME}/z"), path.expand("$HOMEDIR"), path.expand("~bob/x")) }`, "/home/u,/home/u/x,/home/u/y,/home/u/z,$HOMEDIR,~bob/x"},
		{`return { additionalContext = show(path.root()) }`, "/work/p"},
		{`local c = path.config() c[3] = "x" return { additionalContext = show(#path.config(), path.config()[1], path.config()[2]) }`, "2,/work/p/agents.json,/work/p/guards"},
		{`return { additionalContext = show(path.match("**/.env", ".env"), path.match("**/.env", "a/b/.env"), path.match("/etc/**", "/etc/passwd"), path.match("/etc/**", "/etc"), path.match("src/*.go", "src/a.go"), path.match("src/*.go", "src/x/a.go"), path.match("a/**/b/*.txt", "a/x/y/b/c.txt"), path.match("*.pem", "key.pem")) }`, "true,true,true,true,true,false,true,true"},
		{`return { additionalContext = show(pcall(path.match, "[", "x")) }`, "false,m.lua:4: path.match: bad glob \"[\": syntax error in pattern"},
		// os
		{`return { additionalContext = show(os.time(), os.date("%Y-%m-%d %H:%M:%S", 0), os.date("!%F", 86400), os.time({ year = 2024, month = 1, day = 2, hour = 0 }), type(os.clock()), os.date("*t", 0).year) }`, "1700000000,1970-01-01 00:00:00,1970-01-02,1704153600,number,1970"},
		// string basics still work
		{`return { additionalContext = show(("abc"):upper(), string.format("%5.2f|%s|%d", 1.5, "x", 3), ("x"):rep(3, ","), string.byte("A"), #string.rep("ab", 3)) }`, " 1.50|x|3 wait"},
	}
	opts := Options{Home: "/home/u", Root: "/work/p", ConfigPaths: []string{"/work/p/agents.json", "/work/p/guards"}, Now: func() time.Time { return time.Unix(1700000000, 0).UTC() }}
	for _, c := range cases {
		if strings.HasSuffix(c.want, " wait") {
			c.want = "ABC, 1.50|x|3,x,x,x,65,6"
		}
		if got := evalLua(t, opts, c.body); got != c.want {
			t.Errorf("%s\n got %q\nwant %q", c.body, got, c.want)
		}
	}
}

func TestLogModule(t *testing.T) {
	var buf bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	p := newTestPool(t, Options{Logger: logger}, "log.lua", `
local log = require("log")
print("loading", 1)
hook{ event = "BeforeTool", handler = function(i)
  log.info("checking", { tool = i.toolName, n = 2 })
  log.warn("careful")
  print("a", nil, true)
  if i.toolName == "fail" then error("boom") end
  return { decision = "allow" }
end }`)
	out, logs, err := p.CallLogs(context.Background(), 0, &events.Input{Event: events.BeforeTool, ToolName: "bash"})
	if err != nil || out.Decision != events.Allow {
		t.Fatal(out, err)
	}
	if len(logs) != 3 || logs[0].Msg != "checking" || logs[0].Fields["tool"] != "bash" || logs[0].Level != slog.LevelInfo || logs[0].Line != 5 ||
		logs[1].Level != slog.LevelWarn || logs[2].Msg != "a\tnil\ttrue" || logs[0].Script != "log.lua" {
		t.Fatalf("logs = %+v", logs)
	}
	_, logs, err = p.CallLogs(context.Background(), 0, &events.Input{Event: events.BeforeTool, ToolName: "fail"})
	if err == nil || len(logs) != 3 {
		t.Fatalf("on failure: %v %+v", err, logs)
	}
	p.waitWarm() // the other VMs load (and log) in the background
	text := buf.String()
	for _, want := range []string{"msg=checking", "script=log.lua", "line=5", "tool=bash", "level=WARN msg=careful", "msg=\"loading\\t1\""} {
		if !strings.Contains(text, want) {
			t.Errorf("log output lacks %q:\n%s", want, text)
		}
	}
	// Entries are bounded.
	p = handlerPool(t, `for i = 1, 1000 do print(i) end`)
	_, logs, _ = p.CallLogs(context.Background(), 0, bashInput("x"))
	if len(logs) != MaxLogEntries {
		t.Fatalf("%d entries", len(logs))
	}
}

// TestShellCommandShape pins the shape of shell.commands' results (the one
// definition is in mod_shell.go): every key present, empty tables for no
// assignments or redirections, body only on here-documents, a message as a
// second value for a malformed line.
func TestShellCommandShape(t *testing.T) {
	got := evalLua(t, Options{}, `return { additionalContext = json.encode(shell.commands("X=1 cat <<EOF 2>&1 | sh\nbody\nEOF")) }`)
	require.JSONEq(t, `[
	  {"words": ["cat"], "op": "|", "depth": 0, "via": "", "func": "", "forkloop": false, "malformed": false,
	   "assigns": {"X": "1"},
	   "redirects": [{"op": "<<", "fd": "", "target": "EOF", "body": "body\n"},
	                 {"op": ">&", "fd": "2", "target": "1"}]},
	  {"words": ["sh"], "op": ";", "depth": 0, "via": "", "func": "", "forkloop": false, "malformed": false,
	   "assigns": {}, "redirects": []}
	]`, got)
	require.Equal(t, "1,nil", evalLua(t, Options{}, `local c, err = shell.commands("ls") return { additionalContext = show(#c, err) }`))
	require.Equal(t, "2,"+errMalformed, evalLua(t, Options{}, `local c, err = shell.commands("echo $(id") return { additionalContext = show(#c, err) }`))
	got = evalLua(t, Options{}, `return { additionalContext = json.encode((shell.commands("echo $(id"))) }`)
	require.JSONEq(t, `[
	  {"words": ["echo", "$(id"], "op": "", "depth": 0, "via": "", "func": "", "forkloop": false, "malformed": true, "assigns": {}, "redirects": []},
	  {"words": ["id"], "op": "", "depth": 1, "via": "$(", "func": "", "forkloop": false, "malformed": false, "assigns": {}, "redirects": []}
	]`, got)
	require.Equal(t, `[],[]`, evalLua(t, Options{}, `return { additionalContext = json.encode(shell.split("")) .. "," .. json.encode(shell.commands("")) }`))
}

// TestShellCommandsOneArgument: shell.commands has no options (its bounds
// are syntax's defaults), and says so rather than ignore a second argument;
// the only second argument is a dialect.
func TestShellCommandsOneArgument(t *testing.T) {
	got := evalLua(t, Options{}, `return { additionalContext = show(pcall(shell.commands, "ls", { maxDepth = 100 })) }`)
	require.Contains(t, got, "false,")
	require.Contains(t, got, "shell.commands takes a line and a dialect")
	got = evalLua(t, Options{}, `return { additionalContext = show(pcall(shell.commands, "ls", "fish")) }`)
	require.Contains(t, got, `unknown dialect "fish"`)
	require.Equal(t, "1", evalLua(t, Options{}, `return { additionalContext = show(#shell.commands("ls", nil)) }`))
	require.Equal(t, "1", evalLua(t, Options{}, `return { additionalContext = show(#shell.commands("ls", "sh")) }`))
}

// TestShellCommandsPowerShell pins the shape of a PowerShell line's
// commands: the POSIX keys and written, cmdlet, invoke, expr and dialect.
func TestShellCommandsPowerShell(t *testing.T) {
	got := evalLua(t, Options{}, `return { additionalContext = json.encode(shell.commands("rd -Recurse C:\\x 2>&1 | & git.exe push; 'a'", "powershell")) }`)
	require.JSONEq(t, `[
	  {"words": ["Remove-Item", "-Recurse", "C:\\x"], "op": "|", "depth": 0, "via": "", "func": "", "forkloop": false, "malformed": false,
	   "assigns": {}, "redirects": [{"op": ">&", "fd": "2", "target": "1"}], "written": "rd", "cmdlet": true, "invoke": "", "expr": false, "dialect": "powershell"},
	  {"words": ["git", "push"], "op": ";", "depth": 0, "via": "", "func": "", "forkloop": false, "malformed": false,
	   "assigns": {}, "redirects": [], "written": "git.exe", "cmdlet": false, "invoke": "&", "expr": false, "dialect": "powershell"},
	  {"words": ["a"], "op": "", "depth": 0, "via": "", "func": "", "forkloop": false, "malformed": false,
	   "assigns": {}, "redirects": [], "written": "", "cmdlet": false, "invoke": "", "expr": true, "dialect": "powershell"}
	]`, got)
	require.Equal(t, "Remove-Item,cmd", evalLua(t, Options{}, `local c = shell.commands("del /s x", "cmd") return { additionalContext = show(c[1].words[1], c[1].dialect) }`))
	require.Equal(t, "1,"+errMalformed, evalLua(t, Options{}, `local c, err = shell.commands("rm 'x", "powershell") return { additionalContext = show(#c, err) }`))
	require.Contains(t, evalLua(t, Options{}, `return { additionalContext = show(pcall(shell.commands, string.rep("$(", 20), "powershell")) }`), "shell.commands: pwsh: nesting deeper")
	require.Equal(t, "true,false", evalLua(t, Options{}, `return { additionalContext = show(shell.likely("Remove-Item C:\\"), shell.likely("rm -rf x")) }`))
}

// TestScanEntropyIsTheLuaLoop: scan.entropy returns the very float of the
// Lua loop it replaced in redact-secrets (counts in a table, then pairs),
// so that a value at the threshold is judged the same.
func TestScanEntropyIsTheLuaLoop(t *testing.T) {
	p := newTestPool(t, Options{}, "e.lua", `
local scan = require("scan")
local function entropy(s)
  local n = string.len(s)
  if n == 0 then
    return 0
  end
  local counts = {}
  for i = 1, n do
    local c = string.byte(s, i)
    counts[c] = (counts[c] or 0) + 1
  end
  local h = 0
  for _, c in pairs(counts) do
    local p = c / n
    h = h - p * math.log(p) / math.log(2)
  end
  return h
end
hook{ event = "BeforeTool", handler = function(input)
  for _, s in ipairs({ "", "a", "abcdefgh", "aabbccddeeffgghh", "ghp_aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5z",
      "\0\1\2\3\255\254", "x\0y\0z", string.rep("ab", 1000) .. "\0", "pässwörd" }) do
    local want, got = entropy(s), scan.entropy(s)
    if want ~= got then
      return { decision = "deny", reason = string.format("%q: %.17g, want %.17g", s, got, want) }
    end
  end
end }`)
	out, err := p.Call(context.Background(), 0, bashInput("x"))
	require.NoError(t, err)
	require.Empty(t, out.Reason)
}
