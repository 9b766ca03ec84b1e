package rewrite

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// NativeCells returns the source of package pkg whose function Main runs
// the session of cells code (the cells joined) as Go would: its imports,
// those the REPL adds for packages used without one included, and its
// declarations at package level, its statements in order in Main. The
// corpus test (corpus_test.go, package rewrite_test, which starts
// sessions through package repl) builds its native programs with it; it is
// here because it splits the cells with the REPL's own splitter.
func NativeCells(code, pkg string) (string, error) {
	items, err := split(code)
	if err != nil {
		return "", err
	}
	imports := map[string]string{} // name -> import line
	var decls, stmts []string
	for _, it := range items {
		text := code[it.start:it.end]
		switch it.kind {
		case itemImport:
			specs, err := parseImports(text, lineOf(code, it.start))
			if err != nil {
				return "", err
			}
			for _, s := range specs {
				if s.explicitName {
					imports[s.name] = fmt.Sprintf("%s %q", s.name, s.path)
				} else {
					imports[s.name] = fmt.Sprintf("%q", s.path)
				}
			}
		case itemDecl:
			decls = append(decls, text)
		default:
			stmts = append(stmts, text)
		}
	}
	// The REPL imports allowlisted packages used without an import.
	for name, path := range autoImport {
		if _, ok := imports[name]; ok {
			continue
		}
		if regexp.MustCompile(`(^|[^\w.])` + name + `\.[A-Z]`).MatchString(code) {
			imports[name] = fmt.Sprintf("%q", path)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "package %s\n\n", pkg)
	names := make([]string, 0, len(imports))
	for n := range imports {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(&b, "import %s\n", imports[n])
	}
	for _, d := range decls {
		b.WriteString("\n" + d + "\n")
	}
	b.WriteString("\nfunc Main() {\n")
	for _, s := range stmts {
		b.WriteString(s + "\n")
	}
	b.WriteString("}\n")
	return b.String(), nil
}
