package luaapi

import (
	"strconv"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"
)

// Direct outputs.
//
// A handler that returns a table constructor, `return { decision = "deny",
// reason = ... }`, makes gopher-lua build a table: a Go map, a key slice
// and a key-index map, about ten allocations and 800 bytes that the call
// reads two fields of and drops (a third of a denying guard's dispatch,
// BenchmarkLuaGuardPeers). So Compile rewrites each such return in the body
// of a handler written in a hook{} call (the function literal of its
// handler key; not in the functions nested in it, nor in a hook{} call
// inside another handler literal) into a choice:
//
//	return { decision = d, reason = r }   -- becomes
//	if <direct> then return (<outputFunc>(d, r, <shape>)) end
//	return { decision = d, reason = r }
//
// where <shape> is a number constant naming the fields in order, and
// <direct> and <outputFunc> are globals whose names (directFlagName,
// outputFuncName) start with a NUL byte, so that no identifier names them.
// Neither is in the sandbox: they are set only in the environment of the
// copy of the handler that the pool calls (see directHandler), an
// environment no script can reach (there is no getfenv) that reads through
// to the handler's own. The script's own handler, called by Lua code or
// while a script loads, finds <direct> nil and returns the constructor as
// written, with no host call in between (so even at the call-stack limit
// it behaves as written). The pool's copy evaluates the values as the
// constructor evaluates them, in order, each truncated to one value (the
// shape comes last, so no call or ... is the last argument), and the host
// function keeps them in vm.outVals and returns vm.outToken, which
// readOutput reads them from. Only constructors of distinct HookOutput
// keys, all named (`name = value` or `["name"] = value`), are rewritten;
// and a chunk that the rewrite would make too large for gopher-lua's
// compiler (registers, constants) is compiled as written.
const (
	outputFuncName = "\x00output"
	directFlagName = "\x00direct"
)

// handlerLiterals returns the function literals of the handler keys of
// the hook{} call c.
func handlerLiterals(c *ast.FuncCallExpr) []*ast.FunctionExpr {
	spec, ok := c.Args[0].(*ast.TableExpr)
	if !ok {
		return nil
	}
	var out []*ast.FunctionExpr
	for _, f := range spec.Fields {
		if k, ok := f.Key.(*ast.StringExpr); ok && k.Value == "handler" {
			if fn, ok := f.Value.(*ast.FunctionExpr); ok {
				out = append(out, fn)
			}
		}
	}
	return out
}

// rewriteReturns rewrites the returns of the handlers of the hook{} calls
// but the nested ones (see above) and returns a function that undoes it.
func rewriteReturns(hookCalls []*ast.FuncCallExpr, nested map[*ast.FuncCallExpr]bool) (undo func(), n int) {
	type change struct {
		stmts []ast.Stmt
		i     int
		old   ast.Stmt
	}
	var changes []change
	var walk func(stmts []ast.Stmt)
	walk = func(stmts []ast.Stmt) {
		for i, s := range stmts {
			switch s := s.(type) {
			case *ast.ReturnStmt:
				if st := outputStmt(s); st != nil {
					changes = append(changes, change{stmts, i, s})
					stmts[i] = st
				}
			case *ast.DoBlockStmt:
				walk(s.Stmts)
			case *ast.WhileStmt:
				walk(s.Stmts)
			case *ast.RepeatStmt:
				walk(s.Stmts)
			case *ast.IfStmt:
				walk(s.Then)
				walk(s.Else)
			case *ast.NumberForStmt:
				walk(s.Stmts)
			case *ast.GenericForStmt:
				walk(s.Stmts)
			}
		}
	}
	for _, c := range hookCalls {
		if nested[c] {
			// Its closures are made by a running handler: in the
			// pool's copy they would inherit <direct>.
			continue
		}
		for _, fn := range handlerLiterals(c) {
			walk(fn.Stmts)
		}
	}
	return func() {
		for _, c := range changes {
			c.stmts[c.i] = c.old
		}
	}, len(changes)
}

// outputStmt returns the statement that replaces s, a return of a table
// constructor, or nil when s returns anything else.
func outputStmt(s *ast.ReturnStmt) ast.Stmt {
	call := outputCall(s)
	if call == nil {
		return nil
	}
	cond := &ast.IdentExpr{Value: directFlagName}
	direct := &ast.ReturnStmt{Exprs: []ast.Expr{call}}
	st := &ast.IfStmt{Condition: cond, Then: []ast.Stmt{direct}, Else: []ast.Stmt{s}}
	for _, e := range []ast.PositionHolder{cond, direct, st} {
		e.SetLine(s.Line())
		e.SetLastLine(s.LastLine())
	}
	return st
}

// outputCall returns the call that replaces the table constructor s
// returns, or nil when s returns anything else.
func outputCall(s *ast.ReturnStmt) *ast.FuncCallExpr {
	if len(s.Exprs) != 1 {
		return nil
	}
	t, ok := s.Exprs[0].(*ast.TableExpr)
	if !ok || len(t.Fields) == 0 || len(t.Fields) > len(outputKeys) {
		return nil
	}
	args := make([]ast.Expr, 0, len(t.Fields)+1)
	var seen [len(outputKeys)]bool
	shape := 0
	for j, f := range t.Fields {
		k, ok := f.Key.(*ast.StringExpr)
		if !ok {
			return nil
		}
		i := outputKeyIndex(k.Value)
		if i < 0 || seen[i] {
			return nil
		}
		seen[i] = true
		shape |= (i + 1) << (4 * j)
		args = append(args, f.Value)
	}
	shapeExpr := &ast.NumberExpr{Value: strconv.Itoa(shape)}
	fn := &ast.IdentExpr{Value: outputFuncName}
	call := &ast.FuncCallExpr{Func: fn, Args: append(args, shapeExpr), AdjustRet: true}
	for _, e := range []ast.PositionHolder{shapeExpr, fn, call} {
		e.SetLine(t.Line())
		e.SetLastLine(t.LastLine())
	}
	return call
}

// directHandler returns the function the pool calls for the handler fn:
// fn itself, or, when Compile rewrote its returns, a copy of it (the same
// prototype and upvalues) whose environment holds directFlagName and
// outputFuncName and reads everything else through to fn's own (its
// metatable is that of fn's environment). Scripts keep fn; the copy is
// the VM's. fn itself returns its constructors as written.
func (v *vm) directHandler(fn *lua.LFunction) *lua.LFunction {
	if fn.IsG || fn.Env == nil || !protoNames(fn.Proto, directFlagName) {
		return fn
	}
	if _, ok := fn.Env.Metatable.(*lua.LTable); !ok {
		return fn // the copy could not read through (scripts' and libraries' environments all can)
	}
	env, ok := v.directEnvs[fn.Env]
	if !ok {
		env = v.L.CreateTable(0, 2)
		env.RawSetString(directFlagName, lua.LTrue)
		env.RawSetString(outputFuncName, v.outputFn)
		env.Metatable = fn.Env.Metatable
		if v.directEnvs == nil {
			v.directEnvs = map[*lua.LTable]*lua.LTable{}
		}
		v.directEnvs[fn.Env] = env
	}
	return &lua.LFunction{Env: env, Proto: fn.Proto, Upvalues: fn.Upvalues}
}

// protoNames reports whether p's own code has the constant string name.
func protoNames(p *lua.FunctionProto, name string) bool {
	for _, c := range p.Constants {
		if c == lua.LString(name) {
			return true
		}
	}
	return false
}

// luaOutput is the host function of outputFuncName: (values..., shape).
func (v *vm) luaOutput(L *lua.LState) int {
	top := L.GetTop()
	var keys [len(outputKeys)]int
	n := 0
	if sh, ok := L.Get(top).(lua.LNumber); ok && float64(sh) == float64(int64(sh)) {
		for x := int64(sh); x > 0 && n < len(keys); x >>= 4 {
			keys[n] = int(x&15) - 1
			n++
		}
		if int64(sh)>>(4*n) != 0 {
			n = -1
		}
	}
	if n != top-1 || n < 1 {
		L.RaiseError("internal function misused")
	}
	for j := range n {
		if keys[j] < 0 || keys[j] >= len(outputKeys) {
			L.RaiseError("internal function misused")
		}
	}
	if v.handlerDirect(L) {
		// Only this return's fields, whatever an earlier call gave.
		v.outVals = [len(outputKeys)]lua.LValue{}
		for j := range n {
			v.outVals[keys[j]] = L.Get(j + 1)
		}
		v.outSet = true
		v.pl.work.directOuts.Add(1)
		L.Push(v.outToken)
		return 1
	}
	t := L.CreateTable(0, n)
	for j := range n {
		t.RawSetString(outputKeys[keys[j]], L.Get(j+1))
	}
	L.Push(t)
	return 1
}

// handlerDirect reports whether the function calling the running host
// function is the handler of the current call, called by the pool: what it
// returns goes to readOutput only. (Only the pool's copy of a handler
// reaches the host function, and only the pool calls it: this checks what
// directHandler and the rewrite arrange.)
func (v *vm) handlerDirect(L *lua.LState) bool {
	if L != v.L || !v.inHandler {
		return false
	}
	// Level 1 is the handler; a level 2 would be Lua code that called it.
	_, deeper := L.GetStack(2)
	return !deeper
}

// forgetOutput drops what a rewritten return kept, after the call: the VM
// keeps no value of a call, and outToken, should it be returned again,
// reads as a userdata (an error).
func (v *vm) forgetOutput() {
	v.outVals = [len(outputKeys)]lua.LValue{}
	v.outSet = false
}
