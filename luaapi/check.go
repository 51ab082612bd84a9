package luaapi

import (
	"github.com/yuin/gopher-lua/ast"
)

// checkChunk rejects constructs that gopher-lua v1.1.2 miscompiles.
//
// Issue #490: in an assignment to an existing local variable of the current
// function (`r = <expr>`, also in a multiple assignment), gopher-lua writes
// the result of an and/or expression straight into the local's register,
// except for an operand whose falsy value ends the expression early when
// that operand is a general expression (a call, `not`, arithmetic, a field,
// a global or upvalue...): its value stays in a temporary register and the
// local keeps its old value. So with `local r = true`, all of
//
//	r = r and (F() and T())
//	r = (F() and T()) and r
//	r = F() and 1
//	r = not x and y
//
// leave r true when F() returns false or x is truthy. Declarations (`local
// q = ...`), globals, upvalues, table fields, returns, arguments and
// conditions are compiled differently and are not affected.
//
// The check follows gopher-lua's code generator: it walks the and/or tree
// of the right-hand side with the "falsy exit goes to the end" and "truthy
// exit" flags the compiler threads through compileLogicalOpExprAux, and
// flags every operand that is compiled with OP_TEST (not OP_TESTSET) while
// its falsy exit ends the expression. An operand is safe only if it is a
// constant, a comparison, or a local variable of the function; everything
// else is treated as affected. A differential test (TestIssue490Differential)
// checks on random expressions that every assignment the check accepts
// evaluates as Lua 5.1 would.
//
// On its way it collects the calls hook{ ... } (the global hook called with
// one table constructor), whose positions make the errors of a
// registration point at the key at fault (see hookPositions), and says
// which of them lie in the handler literal of another (nested: see
// rewriteReturns).
func checkChunk(name string, chunk []ast.Stmt) (hookCalls []*ast.FuncCallExpr, nested map[*ast.FuncCallExpr]bool, err error) {
	c := &checker{name: name}
	c.pushFunc(nil, chunk)
	c.block(chunk)
	c.popFunc()
	return c.hookCalls, c.nested, c.err
}

type checker struct {
	name      string
	funcs     [][]map[string]bool // per function, a stack of block scopes
	captured  []map[string]bool   // per function, names its closures use
	hookCalls []*ast.FuncCallExpr
	err       error

	handlerLits map[*ast.FunctionExpr]bool // the handler literals of hookCalls
	inHandlers  int                        // handler literals being walked
	nested      map[*ast.FuncCallExpr]bool // hookCalls in a handler literal
}

func (c *checker) pushFunc(params []string, body []ast.Stmt) {
	scope := map[string]bool{}
	for _, p := range params {
		scope[p] = true
	}
	c.funcs = append(c.funcs, []map[string]bool{scope})
	c.captured = append(c.captured, closureNames(body))
}

func (c *checker) popFunc() {
	c.funcs = c.funcs[:len(c.funcs)-1]
	c.captured = c.captured[:len(c.captured)-1]
}

func (c *checker) pushBlock() {
	f := &c.funcs[len(c.funcs)-1]
	*f = append(*f, map[string]bool{})
}

func (c *checker) popBlock() {
	f := &c.funcs[len(c.funcs)-1]
	*f = (*f)[:len(*f)-1]
}

func (c *checker) declare(names ...string) {
	f := c.funcs[len(c.funcs)-1]
	for _, n := range names {
		f[len(f)-1][n] = true
	}
}

// isLocal reports whether name is a local variable of the current function
// (not an upvalue, not a global).
func (c *checker) isLocal(name string) bool {
	f := c.funcs[len(c.funcs)-1]
	for i := len(f) - 1; i >= 0; i-- {
		if f[i][name] {
			return true
		}
	}
	return false
}

func (c *checker) fail(line int, msg string) {
	if c.err == nil {
		c.err = &ScriptError{Script: c.name, Line: line, Kind: ScriptRejected, Msg: msg}
	}
}

func (c *checker) block(stmts []ast.Stmt) {
	c.pushBlock()
	c.stmts(stmts)
	c.popBlock()
}

func (c *checker) stmts(stmts []ast.Stmt) {
	for _, s := range stmts {
		if c.err != nil {
			return
		}
		c.stmt(s)
	}
}

func (c *checker) stmt(s ast.Stmt) {
	switch s := s.(type) {
	case *ast.AssignStmt:
		for _, e := range s.Lhs {
			c.expr(e)
		}
		for _, e := range s.Rhs {
			c.expr(e)
		}
		for i, lhs := range s.Lhs {
			id, ok := lhs.(*ast.IdentExpr)
			if !ok || i >= len(s.Rhs) || !c.isLocal(id.Value) {
				continue
			}
			captured := c.captured[len(c.captured)-1][id.Value]
			if line, bad := miscompiledLogical(s.Rhs[i], id.Value, captured, c.isLocal); bad {
				if line == 0 {
					line = s.Line()
				}
				c.fail(line, "gopher-lua miscompiles an and-expression assigned to the existing local '"+id.Value+
					"' (issue #490: a false operand may leave the old value in place); "+
					"rewrite as: if not (...) then "+id.Value+" = false end, or assign through a new local: "+
					"local ok = <expression>; "+id.Value+" = ok")
				return
			}
		}
	case *ast.LocalAssignStmt:
		for _, e := range s.Exprs {
			c.expr(e)
		}
		c.declare(s.Names...)
	case *ast.FuncCallStmt:
		c.expr(s.Expr)
	case *ast.DoBlockStmt:
		c.block(s.Stmts)
	case *ast.WhileStmt:
		c.expr(s.Condition)
		c.block(s.Stmts)
	case *ast.RepeatStmt:
		c.pushBlock()
		c.stmts(s.Stmts)
		c.expr(s.Condition)
		c.popBlock()
	case *ast.IfStmt:
		c.expr(s.Condition)
		c.block(s.Then)
		c.block(s.Else)
	case *ast.NumberForStmt:
		c.expr(s.Init)
		c.expr(s.Limit)
		c.expr(s.Step)
		c.pushBlock()
		c.declare(s.Name)
		c.block(s.Stmts)
		c.popBlock()
	case *ast.GenericForStmt:
		for _, e := range s.Exprs {
			c.expr(e)
		}
		c.pushBlock()
		c.declare(s.Names...)
		c.block(s.Stmts)
		c.popBlock()
	case *ast.FuncDefStmt:
		if s.Name != nil {
			c.expr(s.Name.Func)
			c.expr(s.Name.Receiver)
		}
		c.function(s.Func, s.Name != nil && s.Name.Method != "")
	case *ast.ReturnStmt:
		for _, e := range s.Exprs {
			c.expr(e)
		}
	}
}

func (c *checker) function(f *ast.FunctionExpr, method bool) {
	if f == nil {
		return
	}
	var params []string
	if method {
		params = append(params, "self")
	}
	if f.ParList != nil {
		params = append(params, f.ParList.Names...)
	}
	if c.handlerLits[f] {
		c.inHandlers++
		defer func() { c.inHandlers-- }()
	}
	c.pushFunc(params, f.Stmts)
	c.stmts(f.Stmts)
	c.popFunc()
}

// expr descends into nested function bodies (which have their own locals).
func (c *checker) expr(e ast.Expr) {
	if e == nil || c.err != nil {
		return
	}
	switch e := e.(type) {
	case *ast.FunctionExpr:
		c.function(e, false)
	case *ast.AttrGetExpr:
		c.expr(e.Object)
		c.expr(e.Key)
	case *ast.TableExpr:
		for _, f := range e.Fields {
			c.expr(f.Key)
			c.expr(f.Value)
		}
	case *ast.FuncCallExpr:
		if id, ok := e.Func.(*ast.IdentExpr); ok && id.Value == "hook" && len(e.Args) == 1 && !c.isLocal("hook") {
			if _, ok := e.Args[0].(*ast.TableExpr); ok {
				c.hookCalls = append(c.hookCalls, e)
				if c.inHandlers > 0 {
					if c.nested == nil {
						c.nested = map[*ast.FuncCallExpr]bool{}
					}
					c.nested[e] = true
				}
				for _, fn := range handlerLiterals(e) {
					if c.handlerLits == nil {
						c.handlerLits = map[*ast.FunctionExpr]bool{}
					}
					c.handlerLits[fn] = true
				}
			}
		}
		c.expr(e.Func)
		c.expr(e.Receiver)
		for _, a := range e.Args {
			c.expr(a)
		}
	case *ast.LogicalOpExpr:
		c.expr(e.Lhs)
		c.expr(e.Rhs)
	case *ast.RelationalOpExpr:
		c.expr(e.Lhs)
		c.expr(e.Rhs)
	case *ast.StringConcatOpExpr:
		c.expr(e.Lhs)
		c.expr(e.Rhs)
	case *ast.ArithmeticOpExpr:
		c.expr(e.Lhs)
		c.expr(e.Rhs)
	case *ast.UnaryMinusOpExpr:
		c.expr(e.Expr)
	case *ast.UnaryNotOpExpr:
		c.expr(e.Expr)
	case *ast.UnaryLenOpExpr:
		c.expr(e.Expr)
	}
}

// logicalWalk mirrors compileLogicalOpExprAux over the and/or tree of a
// right-hand side assigned to the existing local target, operands in
// evaluation order.
type logicalWalk struct {
	target   string
	isLocal  func(string) bool
	captured bool // target is referenced from some closure
	// wrote: an earlier operand may already have written the target's
	// register (OP_TESTSET towards a label that is not the end).
	wrote bool
	line  int
	bad   bool
}

// miscompiledLogical reports whether e, assigned to the existing local
// target, hits issue #490, and the line of the offending operand.
func miscompiledLogical(e ast.Expr, target string, captured bool, isLocal func(string) bool) (int, bool) {
	lo, ok := e.(*ast.LogicalOpExpr)
	if !ok {
		return 0, false
	}
	w := &logicalWalk{target: target, isLocal: isLocal, captured: captured}
	// The root: compileLogicalOpExpr. "End" is the label after the whole
	// expression, where the result must be in the target register.
	if lo.Operator == "and" {
		w.operand(lo.Lhs, false, true, false)
	} else {
		w.operand(lo.Lhs, true, false, true)
	}
	w.operand(lo.Rhs, true, true, false)
	return w.line, w.bad
}

func (w *logicalWalk) fail(e ast.Expr) {
	if !w.bad {
		w.bad, w.line = true, e.Line()
	}
}

// operand visits one operand: thenEnd and elseEnd say whether its truthy
// and falsy exits go to the end of the whole expression, hasNext whether a
// truthy value short-circuits (the operand is the left side of an `or`).
func (w *logicalWalk) operand(e ast.Expr, thenEnd, elseEnd, hasNext bool) {
	if w.bad {
		return
	}
	if ex, ok := e.(*ast.LogicalOpExpr); ok {
		if ex.Operator == "and" {
			w.operand(ex.Lhs, false, elseEnd, false)
		} else {
			w.operand(ex.Lhs, thenEnd, false, true)
		}
		w.operand(ex.Rhs, thenEnd, elseEnd, hasNext)
		return
	}
	// Reading the target after its register may have been overwritten
	// sees the intermediate value, directly or through a closure.
	if w.wrote && (mentions(e, w.target) || (w.captured && hasCall(e))) {
		w.fail(e)
		return
	}
	last := thenEnd && elseEnd
	switch ex := e.(type) {
	case *ast.TrueExpr, *ast.FalseExpr, *ast.NilExpr, *ast.NumberExpr, *ast.StringExpr, *ast.RelationalOpExpr:
		return
	case *ast.IdentExpr:
		isLastAnd := elseEnd && !last
		isLastOr := thenEnd && hasNext
		if w.isLocal(ex.Value) && (isLastAnd || isLastOr) {
			return // OP_TESTSET/OP_TEST straight from the local
		}
	}
	if last {
		return // compiled into a temporary and moved: correct
	}
	if hasNext {
		// OP_TESTSET target, tmp: a truthy value is written to the
		// target before jumping to the then label.
		if !thenEnd {
			w.wrote = true
		}
		return
	}
	// OP_TEST tmp: a falsy value that ends the expression stays in the
	// temporary and is lost.
	if elseEnd {
		w.fail(e)
	}
}

// mentions reports whether e refers to the name anywhere.
func mentions(e ast.Expr, name string) bool {
	found := false
	walkExpr(e, func(x ast.Expr) {
		if id, ok := x.(*ast.IdentExpr); ok && id.Value == name {
			found = true
		}
	})
	return found
}

// hasCall reports whether evaluating e may run Lua code (a call, or an
// operator that may invoke a metamethod).
func hasCall(e ast.Expr) bool {
	found := false
	walkExpr(e, func(x ast.Expr) {
		switch x.(type) {
		case *ast.FuncCallExpr, *ast.AttrGetExpr, *ast.ArithmeticOpExpr, *ast.StringConcatOpExpr,
			*ast.UnaryMinusOpExpr, *ast.UnaryLenOpExpr, *ast.RelationalOpExpr:
			found = true
		}
	})
	return found
}

// walkExpr calls f on e and its subexpressions, not descending into
// function bodies.
func walkExpr(e ast.Expr, f func(ast.Expr)) {
	if e == nil {
		return
	}
	f(e)
	switch e := e.(type) {
	case *ast.AttrGetExpr:
		walkExpr(e.Object, f)
		walkExpr(e.Key, f)
	case *ast.TableExpr:
		for _, fl := range e.Fields {
			walkExpr(fl.Key, f)
			walkExpr(fl.Value, f)
		}
	case *ast.FuncCallExpr:
		walkExpr(e.Func, f)
		walkExpr(e.Receiver, f)
		for _, a := range e.Args {
			walkExpr(a, f)
		}
	case *ast.LogicalOpExpr:
		walkExpr(e.Lhs, f)
		walkExpr(e.Rhs, f)
	case *ast.RelationalOpExpr:
		walkExpr(e.Lhs, f)
		walkExpr(e.Rhs, f)
	case *ast.StringConcatOpExpr:
		walkExpr(e.Lhs, f)
		walkExpr(e.Rhs, f)
	case *ast.ArithmeticOpExpr:
		walkExpr(e.Lhs, f)
		walkExpr(e.Rhs, f)
	case *ast.UnaryMinusOpExpr:
		walkExpr(e.Expr, f)
	case *ast.UnaryNotOpExpr:
		walkExpr(e.Expr, f)
	case *ast.UnaryLenOpExpr:
		walkExpr(e.Expr, f)
	}
}

// closureNames returns every identifier used inside the functions nested in
// stmts (an over-approximation of the locals of stmts' function that
// closures capture).
func closureNames(stmts []ast.Stmt) map[string]bool {
	names := map[string]bool{}
	var inFunc int
	var visitStmts func([]ast.Stmt)
	var visitExpr func(ast.Expr)
	visitExpr = func(e ast.Expr) {
		walkExpr(e, func(x ast.Expr) {
			switch x := x.(type) {
			case *ast.IdentExpr:
				if inFunc > 0 {
					names[x.Value] = true
				}
			case *ast.FunctionExpr:
				inFunc++
				visitStmts(x.Stmts)
				inFunc--
			}
		})
	}
	visitStmts = func(ss []ast.Stmt) {
		for _, s := range ss {
			switch s := s.(type) {
			case *ast.AssignStmt:
				for _, e := range s.Lhs {
					visitExpr(e)
				}
				for _, e := range s.Rhs {
					visitExpr(e)
				}
			case *ast.LocalAssignStmt:
				for _, e := range s.Exprs {
					visitExpr(e)
				}
			case *ast.FuncCallStmt:
				visitExpr(s.Expr)
			case *ast.DoBlockStmt:
				visitStmts(s.Stmts)
			case *ast.WhileStmt:
				visitExpr(s.Condition)
				visitStmts(s.Stmts)
			case *ast.RepeatStmt:
				visitStmts(s.Stmts)
				visitExpr(s.Condition)
			case *ast.IfStmt:
				visitExpr(s.Condition)
				visitStmts(s.Then)
				visitStmts(s.Else)
			case *ast.NumberForStmt:
				visitExpr(s.Init)
				visitExpr(s.Limit)
				visitExpr(s.Step)
				visitStmts(s.Stmts)
			case *ast.GenericForStmt:
				for _, e := range s.Exprs {
					visitExpr(e)
				}
				visitStmts(s.Stmts)
			case *ast.FuncDefStmt:
				if s.Name != nil {
					visitExpr(s.Name.Func)
					visitExpr(s.Name.Receiver)
				}
				if s.Func != nil {
					inFunc++
					visitStmts(s.Func.Stmts)
					inFunc--
				}
			case *ast.ReturnStmt:
				for _, e := range s.Exprs {
					visitExpr(e)
				}
			}
		}
	}
	visitStmts(stmts)
	return names
}
