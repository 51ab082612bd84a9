// Package luaapi runs Lua atom-pack hooks in pooled, sandboxed gopher-lua
// VMs.
//
// A script registers hooks while it loads, mirroring the SDK's
// hook({event, matcher, handler}):
//
//	local re = require("re")
//	hook{ event = "BeforeTool", matcher = "^shell_exec$", onError = "deny", timeoutMs = 50,
//	      handler = function(input)
//	        if re.find(input.toolInput.command or "", "rm\\s+-rf") then
//	          return { decision = "deny", reason = "rm -rf" }
//	        end
//	      end }
//
// [Compile] parses and compiles a script once; [NewPool] loads a set of
// script instances ([Source]: a script and its params) into VMs and
// collects the registrations ([Pool.Hooks]); [Pool.Call] runs one hook's
// handler on a pooled VM.
package luaapi
