// Package symbols holds the yaegi symbol tables of the standard library
// packages that model code may import in a REPL session. The tables are
// generated for the Go in use so that modern functions (strings.Lines,
// strings.SplitSeq) exist; generic functions cannot be extracted and are
// provided by the repl package instead.
package symbols

import "reflect"

//go:generate go run github.com/traefik/yaegi/cmd/yaegi@v0.16.1 extract -name symbols strings strconv regexp regexp/syntax sort bytes unicode unicode/utf8 unicode/utf16 fmt math math/bits math/cmplx math/rand math/rand/v2 encoding/json encoding/csv encoding/base32 encoding/base64 encoding/hex errors sync sync/atomic time text/tabwriter container/heap container/list container/ring hash/crc32 hash/fnv crypto/md5 crypto/sha1 crypto/sha256 crypto/sha512 html bufio io path

// Symbols maps "importpath/name" to the package's exported symbols, in the
// form interp.Interpreter.Use expects. It is filled by the generated files'
// init functions and read-only afterwards.
var Symbols = map[string]map[string]reflect.Value{}
