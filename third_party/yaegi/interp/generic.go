package interp

import (
	"strings"
	"sync/atomic"
)

// adot produces an AST dot(1) directed acyclic graph for the given node. For debugging only.
// func (n *node) adot() { n.astDot(dotWriter(n.interp.dotCmd), n.ident) }

// genAST returns a new AST where generic types are replaced by instantiated types.
func genAST(sc *scope, root *node, types []*itype) (*node, bool, error) {
	typeParam := map[string]*node{}
	pindex := 0
	tname := ""
	rtname := ""
	recvrPtr := false
	fixNodes := []*node{}
	var gtree func(*node, *node) (*node, error)
	sname := root.child[0].ident + "["
	if root.kind == funcDecl {
		sname = root.child[1].ident + "["
	}

	// Input type parameters must be resolved prior AST generation, as compilation
	// of generated AST may occur in a different scope.
	for _, t := range types {
		sname += t.id() + ","
	}
	sname = strings.TrimSuffix(sname, ",") + "]"

	gtree = func(n, anc *node) (*node, error) {
		nod := copyNode(n, anc, false)
		switch n.kind {
		case funcDecl, funcType:
			nod.val = nod

		case identExpr:
			// Replace generic type by instantiated one.
			nt, ok := typeParam[n.ident]
			if !ok {
				break
			}
			nod = copyNode(nt, anc, true)
			nod.typ = nt.typ

		case indexExpr:
			// Catch a possible recursive generic type definition
			if root.kind != typeSpec && root.kind != typeSpecAssign {
				break
			}
			if root.child[0].ident != n.child[0].ident {
				break
			}
			nod := copyNode(n.child[0], anc, false)
			fixNodes = append(fixNodes, nod)
			return nod, nil

		case fieldList:
			//  Node is the type parameters list of a generic function.
			if root.kind == funcDecl && n.anc == root.child[2] && childPos(n) == 0 {
				// Fill the types lookup table used for type substitution.
				for _, c := range n.child {
					l := len(c.child) - 1
					for _, cc := range c.child[:l] {
						if pindex >= len(types) {
							return nil, cc.cfgErrorf("undefined type for %s", cc.ident)
						}
						t, err := nodeType(c.interp, sc, c.child[l])
						if err != nil {
							return nil, err
						}
						if err := checkConstraint(types[pindex], t); err != nil {
							return nil, err
						}
						typeParam[cc.ident] = copyNode(cc, cc.anc, false)
						typeParam[cc.ident].ident = types[pindex].id()
						typeParam[cc.ident].typ = types[pindex]
						pindex++
					}
				}
				// Skip type parameters specification, so generated func doesn't look generic.
				return nod, nil
			}

			// Node is the receiver of a generic method.
			if root.kind == funcDecl && n.anc == root && childPos(n) == 0 && len(n.child) > 0 {
				rtn := n.child[0].child[1]
				// Method receiver is a generic type if it takes some type parameters.
				if rtn.kind == indexExpr || rtn.kind == indexListExpr || (rtn.kind == starExpr && (rtn.child[0].kind == indexExpr || rtn.child[0].kind == indexListExpr)) {
					if rtn.kind == starExpr {
						// Method receiver is a pointer on a generic type.
						rtn = rtn.child[0]
						recvrPtr = true
					}
					rtname = rtn.child[0].ident + "["
					for _, cc := range rtn.child[1:] {
						if pindex >= len(types) {
							return nil, cc.cfgErrorf("undefined type for %s", cc.ident)
						}
						it := types[pindex]
						typeParam[cc.ident] = copyNode(cc, cc.anc, false)
						typeParam[cc.ident].ident = it.id()
						typeParam[cc.ident].typ = it
						rtname += it.id() + ","
						pindex++
					}
					rtname = strings.TrimSuffix(rtname, ",") + "]"
				}
			}

			// Node is the type parameters list of a generic type (or of
			// a generic alias, type Set[T comparable] = map[T]struct{}).
			if (root.kind == typeSpec || root.kind == typeSpecAssign) && n.anc == root && childPos(n) == 1 {
				// Fill the types lookup table used for type substitution.
				tname = n.anc.child[0].ident + "["
				for _, c := range n.child {
					l := len(c.child) - 1
					for _, cc := range c.child[:l] {
						if pindex >= len(types) {
							return nil, cc.cfgErrorf("undefined type for %s", cc.ident)
						}
						it := types[pindex]
						t, err := nodeType(c.interp, sc, c.child[l])
						if err != nil {
							return nil, err
						}
						if err := checkConstraint(types[pindex], t); err != nil {
							return nil, err
						}
						typeParam[cc.ident] = copyNode(cc, cc.anc, false)
						typeParam[cc.ident].ident = it.id()
						typeParam[cc.ident].typ = it
						tname += it.id() + ","
						pindex++
					}
				}
				tname = strings.TrimSuffix(tname, ",") + "]"
				return nod, nil
			}
		}

		for _, c := range n.child {
			gn, err := gtree(c, nod)
			if err != nil {
				return nil, err
			}
			nod.child = append(nod.child, gn)
		}
		return nod, nil
	}

	if nod, found := root.interp.generic[sname]; found {
		return nod, true, nil
	}

	r, err := gtree(root, root.anc)
	if err != nil {
		return nil, false, err
	}
	root.interp.generic[sname] = r
	r.param = append(r.param, types...)
	if tname != "" {
		for _, nod := range fixNodes {
			nod.ident = tname
		}
		r.child[0].ident = tname
	}
	if rtname != "" {
		// Replace method receiver type by synthetized ident.
		nod := r.child[0].child[0].child[1]
		if recvrPtr {
			nod = nod.child[0]
		}
		nod.kind = identExpr
		nod.ident = rtname
		nod.child = nil
	}
	// r.adot() // Used for debugging only.
	return r, false, nil
}

func copyNode(n, anc *node, recursive bool) *node {
	var i interface{}
	nindex := atomic.AddInt64(&n.interp.nindex, 1)
	nod := &node{
		debug:  n.debug,
		anc:    anc,
		interp: n.interp,
		index:  nindex,
		level:  n.level,
		nleft:  n.nleft,
		nright: n.nright,
		kind:   n.kind,
		pos:    n.pos,
		action: n.action,
		gen:    n.gen,
		val:    &i,
		rval:   n.rval,
		ident:  n.ident,
		meta:   n.meta,
	}
	nod.start = nod
	if recursive {
		for _, c := range n.child {
			nod.child = append(nod.child, copyNode(c, nod, true))
		}
	}
	return nod
}

// inferTypesFromCall infers the type arguments of a call of the generic
// function fun from its arguments, in the order of fun's type parameters
// (genAST reads them by position). ellipsis is set for a call f(xs...).
func inferTypesFromCall(sc *scope, fun *node, args []*node, ellipsis bool) ([]*itype, error) {
	ftn := fun.typ.node
	// Fill the map of parameter types, indexed by type param ident.
	paramTypes := map[string]*itype{}
	for _, c := range ftn.child[0].child {
		typ, err := nodeType(fun.interp, sc, c.lastChild())
		if err != nil {
			return nil, err
		}
		for _, cc := range c.child[:len(c.child)-1] {
			paramTypes[cc.ident] = typ
		}
	}

	inferred := map[string]*itype{} // type parameter name -> the first type inferred for it
	var inferTypes func(*itype, *itype) ([]*itype, error)
	inferTypes = func(param, input *itype) ([]*itype, error) {
		if input == nil {
			return nil, nil // the argument has no part where param has one
		}
		if param.cat != nilT && param.cat != genericT {
			// A structure is matched with the argument's underlying
			// one, as in Go (an iter.Seq[int] for a func(func(E) bool)).
			input = input.underlying()
		}
		switch param.cat {
		case chanT, ptrT, sliceT:
			return inferTypes(param.val, input.val)

		case mapT:
			k, err := inferTypes(param.key, input.key)
			if err != nil {
				return nil, err
			}
			v, err := inferTypes(param.val, input.val)
			if err != nil {
				return nil, err
			}
			return append(k, v...), nil

		case structT:
			lt := []*itype{}
			for i, f := range param.field {
				nl, err := inferTypes(f.typ, input.field[i].typ)
				if err != nil {
					return nil, err
				}
				lt = append(lt, nl...)
			}
			return lt, nil

		case funcT:
			lt := []*itype{}
			for i, t := range param.arg {
				if i >= len(input.arg) {
					break
				}
				nl, err := inferTypes(t, input.arg[i])
				if err != nil {
					return nil, err
				}
				lt = append(lt, nl...)
			}
			for i, t := range param.ret {
				if i >= len(input.ret) {
					break
				}
				nl, err := inferTypes(t, input.ret[i])
				if err != nil {
					return nil, err
				}
				lt = append(lt, nl...)
			}
			return lt, nil

		case nilT:
			if paramTypes[param.name] != nil {
				if inferred[param.name] == nil {
					inferred[param.name] = input
				}
				return []*itype{input}, nil
			}

		case genericT:
			if paramTypes[param.name] == nil {
				return nil, nil // a generic type, which instanceParamType left as it is
			}
			if inferred[param.name] == nil {
				inferred[param.name] = input
			}
			return []*itype{input}, nil
		}
		return nil, nil
	}

	// An untyped constant argument gives its default type, as in Go
	// (Sum(1.5, 2.25) is Sum[float64]).
	argType := func(a *node) *itype {
		if a.typ != nil && a.typ.untyped {
			return a.typ.defaultType(a.rval, sc)
		}
		return a.typ
	}

	// Each parameter field may name several parameters (a, b T), and a
	// variadic one takes the rest of the arguments (or, with an ellipsis,
	// a slice of them).
	types := []*itype{}
	ai := 0
	for _, c := range ftn.child[1].child {
		typ, err := nodeType(fun.interp, sc, c.lastChild())
		if err != nil {
			return nil, err
		}
		typ = instanceParamType(sc, c.lastChild(), typ)
		for range max(1, len(c.child)-1) {
			if ai >= len(args) {
				break
			}
			var lt []*itype
			switch {
			case typ.cat == variadicT && ellipsis:
				if args[ai].typ != nil && args[ai].typ.val != nil {
					lt, err = inferTypes(typ.val, args[ai].typ.val)
				}
				ai = len(args)
			case typ.cat == variadicT:
				for _, a := range args[ai:] {
					l, e := inferTypes(typ.val, argType(a))
					if e != nil {
						return nil, e
					}
					lt = append(lt, l...)
				}
				ai = len(args)
			default:
				lt, err = inferTypes(typ, argType(args[ai]))
				ai++
			}
			if err != nil {
				return nil, err
			}
			types = append(types, lt...)
		}
	}
	if len(inferred) == 0 {
		return types, nil
	}
	// In the order of the type parameters; one not inferred ends the list,
	// and genAST reports it.
	ordered := []*itype{}
	for _, c := range ftn.child[0].child {
		for _, cc := range c.child[:len(c.child)-1] {
			t := inferred[cc.ident]
			if t == nil {
				return ordered, nil
			}
			ordered = append(ordered, t)
		}
	}
	return ordered, nil
}

// instanceParamType returns the type of a parameter of a generic function
// written tn, when tn instantiates a generic type with the function's type
// parameters (seq iter.Seq[E], p *Pair[K, V]): the generic type's
// definition with them in it (func(yield func(E) bool)), in which
// inferTypesFromCall can find them, where typ, nodeType's type of tn, is
// the generic type itself. Otherwise it returns typ.
func instanceParamType(sc *scope, tn *node, typ *itype) *itype {
	if tn.kind == starExpr && typ.cat == ptrT && len(tn.child) == 1 {
		if t := instanceParamType(sc, tn.child[0], typ.val); t != typ.val {
			return ptrOf(t, withScope(sc))
		}
		return typ
	}
	if tn.kind != indexExpr && tn.kind != indexListExpr || typ.cat != genericT ||
		typ.node == nil || typ.node.anc == nil || typ.node.anc.kind != typeSpec && typ.node.anc.kind != typeSpecAssign {
		return typ
	}
	args := make([]*itype, 0, len(tn.child)-1)
	for _, a := range tn.child[1:] {
		t, err := nodeType(a.interp, sc, a)
		if err != nil {
			return typ
		}
		args = append(args, t)
	}
	g, found, err := genAST(sc, typ.node.anc, args)
	if err != nil {
		return typ
	}
	if !found {
		forgetInstance(tn.interp, g) // made to infer, not to be a type
	}
	def := g.lastChild()
	t, err := nodeType(g.interp, sc, def)
	if err != nil || t == nil {
		return typ
	}
	return instanceParamType(sc, def, t) // type Named[V any] = Pair[string, V]
}

func checkConstraint(it, ct *itype) error {
	if len(ct.constraint) == 0 && len(ct.ulconstraint) == 0 {
		return nil
	}
	if it.cat == genericT {
		// A type parameter (instanceParamType): the function instantiated
		// with its type argument checks it.
		return nil
	}
	for _, c := range ct.constraint {
		if it.equals(c) || it.matchDefault(c) {
			return nil
		}
	}
	for _, c := range ct.ulconstraint {
		if it.underlying().equals(c) || it.matchDefault(c) {
			return nil
		}
	}
	return it.node.cfgErrorf("%s does not implement %s", it.id(), ct.id())
}

// genericCallType is the result type of the call n of the generic function
// of type t, from the function instantiated with the type arguments the
// call's arguments infer; nil when it cannot be told yet.
func genericCallType(interp *Interpreter, sc *scope, t *itype, n *node) *itype {
	fun := t.node.anc
	if fun == nil || fun.kind != funcDecl {
		return nil
	}
	for _, a := range n.child[1:] {
		if a.typ == nil {
			at, err := nodeType(interp, sc, a)
			if err != nil || at == nil || at.incomplete {
				return nil
			}
			a.typ = at
		}
	}
	types, err := inferTypesFromCall(sc, fun, n.child[1:], n.action == aCallSlice)
	if err != nil || len(types) == 0 {
		return nil
	}
	g, found, err := genAST(sc, fun, types)
	if err != nil {
		return nil
	}
	if !found {
		// Only the type is wanted here: the call's cfg instantiates and
		// compiles the function, which it skips for one already cached.
		forgetInstance(interp, g)
	}
	ft, err := nodeType(interp, sc, g.child[2])
	if err != nil || ft == nil || len(ft.ret) != 1 || ft.ret[0].incomplete {
		return nil
	}
	return ft.ret[0]
}

// forgetInstance removes g, made by genAST only to read a type from, from
// the instances genAST keeps, so that the code that needs the instance
// makes and compiles its own.
func forgetInstance(interp *Interpreter, g *node) {
	for name, r := range interp.generic {
		if r == g {
			delete(interp.generic, name)
		}
	}
}
