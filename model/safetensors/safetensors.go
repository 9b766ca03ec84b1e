// Package safetensors reads and writes the safetensors format: an 8-byte
// little-endian header length, a JSON header mapping tensor names to dtype,
// shape and byte offsets (plus an optional "__metadata__" string map), then
// the raw little-endian tensor bytes.
//
// Files are memory-mapped for reading, so opening a multi-gigabyte
// checkpoint costs nothing until a tensor is converted. F32, F16 and BF16
// tensors are read (converted to float32); F32 and BF16 are written.
// Sharded checkpoints (model.safetensors.index.json) are read by OpenDir.
package safetensors

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sort"

	"golang.org/x/sys/unix"
)

// DType names a tensor element type as the header spells it.
type DType string

// The element types this package converts.
const (
	F32  DType = "F32"
	F16  DType = "F16"
	BF16 DType = "BF16"
)

// Size returns the element size in bytes, or 0 for an unknown dtype.
func (d DType) Size() int {
	switch d {
	case F32:
		return 4
	case F16, BF16:
		return 2
	case "F64", "I64", "U64":
		return 8
	case "I32", "U32":
		return 4
	case "I16", "U16":
		return 2
	case "I8", "U8", "BOOL", "F8_E4M3", "F8_E5M2":
		return 1
	}
	return 0
}

// TensorInfo is one header entry.
type TensorInfo struct {
	DType       DType    `json:"dtype"`
	Shape       []int    `json:"shape"`
	DataOffsets [2]int64 `json:"data_offsets"`
}

// NumElements is the product of the shape (1 for a scalar).
func (t TensorInfo) NumElements() int {
	n := 1
	for _, d := range t.Shape {
		n *= d
	}
	return n
}

// maxHeader bounds the JSON header so a corrupt length cannot make us
// allocate gigabytes; real headers are kilobytes to a few megabytes.
const maxHeader = 100 << 20

// File is an open safetensors file, memory-mapped (Open) or in memory
// (Parse). Close it when done; slices returned by Raw are invalid after
// Close.
type File struct {
	path     string
	data     []byte // the whole mapping, or the bytes Parse was given
	mapped   bool   // data is a mapping Close must unmap
	body     []byte // data after the header
	Tensors  map[string]TensorInfo
	Metadata map[string]string
}

// Open maps path and parses its header, checking every tensor's offsets
// against the file size.
func Open(path string) (*File, error) {
	fd, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("safetensors: %w", err)
	}
	defer fd.Close()
	st, err := fd.Stat()
	if err != nil {
		return nil, fmt.Errorf("safetensors: %w", err)
	}
	size := st.Size()
	if size < 8 {
		return nil, fmt.Errorf("safetensors: %s: file too short (%d bytes)", path, size)
	}
	data, err := unix.Mmap(int(fd.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("safetensors: mmap %s: %w", path, err)
	}
	f, err := parse(path, data)
	if err != nil {
		unix.Munmap(data)
		return nil, err
	}
	f.mapped = true
	return f, nil
}

// Parse reads a safetensors file already in memory (an embedded one); the
// tensors' bytes stay in data, which must not change while f is used. name
// is the file's name in errors.
func Parse(name string, data []byte) (*File, error) {
	if len(data) < 8 {
		return nil, fmt.Errorf("safetensors: %s: file too short (%d bytes)", name, len(data))
	}
	return parse(name, data)
}

func parse(path string, data []byte) (*File, error) {
	n := binary.LittleEndian.Uint64(data[:8])
	if n > maxHeader || n > uint64(len(data)-8) {
		return nil, fmt.Errorf("safetensors: %s: header length %d does not fit the file (%d bytes)", path, n, len(data))
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data[8:8+n], &raw); err != nil {
		return nil, fmt.Errorf("safetensors: %s: header: %w", path, err)
	}
	f := &File{path: path, data: data, body: data[8+n:], Tensors: map[string]TensorInfo{}}
	for name, msg := range raw {
		if name == "__metadata__" {
			if err := json.Unmarshal(msg, &f.Metadata); err != nil {
				return nil, fmt.Errorf("safetensors: %s: __metadata__: %w", path, err)
			}
			continue
		}
		var ti TensorInfo
		if err := json.Unmarshal(msg, &ti); err != nil {
			return nil, fmt.Errorf("safetensors: %s: tensor %q: %w", path, name, err)
		}
		es := ti.DType.Size()
		if es == 0 {
			return nil, fmt.Errorf("safetensors: %s: tensor %q: unknown dtype %q", path, name, ti.DType)
		}
		// Negative dimensions could multiply out to a plausible size
		// ([-2,-3] is 6 elements), and a product that overflows could too.
		elems := int64(1)
		for _, d := range ti.Shape {
			if d < 0 || (d > 0 && elems > math.MaxInt64/int64(es)/int64(d)) {
				return nil, fmt.Errorf("safetensors: %s: tensor %q: bad shape %v", path, name, ti.Shape)
			}
			elems *= int64(d)
		}
		lo, hi := ti.DataOffsets[0], ti.DataOffsets[1]
		if lo < 0 || hi < lo || hi > int64(len(f.body)) {
			return nil, fmt.Errorf("safetensors: %s: tensor %q: offsets [%d,%d) outside data of %d bytes", path, name, lo, hi, len(f.body))
		}
		if hi-lo != elems*int64(es) {
			return nil, fmt.Errorf("safetensors: %s: tensor %q: %d bytes for shape %v of %s", path, name, hi-lo, ti.Shape, ti.DType)
		}
		f.Tensors[name] = ti
	}
	return f, nil
}

// Close unmaps the file (a parsed one only drops its bytes).
func (f *File) Close() error {
	if f.data == nil {
		return nil
	}
	var err error
	if f.mapped {
		err = unix.Munmap(f.data)
	}
	f.data, f.body = nil, nil
	if err != nil {
		return fmt.Errorf("safetensors: munmap %s: %w", f.path, err)
	}
	return nil
}

// Names returns the tensor names in sorted order.
func (f *File) Names() []string {
	names := make([]string, 0, len(f.Tensors))
	for n := range f.Tensors {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Raw returns the tensor's bytes inside the mapping, without copying.
func (f *File) Raw(name string) (TensorInfo, []byte, error) {
	ti, ok := f.Tensors[name]
	if !ok {
		return TensorInfo{}, nil, fmt.Errorf("safetensors: %s: no tensor %q", f.path, name)
	}
	return ti, f.body[ti.DataOffsets[0]:ti.DataOffsets[1]], nil
}

// ReadFloat32 converts the named tensor into dst, which must have exactly
// its number of elements.
func (f *File) ReadFloat32(name string, dst []float32) error {
	ti, b, err := f.Raw(name)
	if err != nil {
		return err
	}
	if len(dst) != ti.NumElements() {
		return fmt.Errorf("safetensors: %s: tensor %q has shape %v, want %d elements", f.path, name, ti.Shape, len(dst))
	}
	if err := Decode(dst, ti.DType, b); err != nil {
		return fmt.Errorf("safetensors: %s: tensor %q: %w", f.path, name, err)
	}
	return nil
}

// Decode converts little-endian bytes of dtype into float32s.
func Decode(dst []float32, dtype DType, b []byte) error {
	switch dtype {
	case F32:
		for i := range dst {
			dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		}
	case BF16:
		for i := range dst {
			dst[i] = math.Float32frombits(uint32(binary.LittleEndian.Uint16(b[2*i:])) << 16)
		}
	case F16:
		for i := range dst {
			dst[i] = HalfToFloat32(binary.LittleEndian.Uint16(b[2*i:]))
		}
	default:
		return fmt.Errorf("cannot convert dtype %s to float32", dtype)
	}
	return nil
}

// HalfToFloat32 converts an IEEE 754 binary16 value.
func HalfToFloat32(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f: // inf or NaN
		return math.Float32frombits(sign | 0xff<<23 | mant<<13)
	case exp == 0:
		if mant == 0 {
			return math.Float32frombits(sign)
		}
		// Subnormal: value = mant · 2⁻²⁴.
		v := float32(mant) / (1 << 24)
		if sign != 0 {
			v = -v
		}
		return v
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | mant<<13)
}

// Float32ToBF16 rounds to nearest even, keeping NaN a NaN.
func Float32ToBF16(x float32) uint16 {
	b := math.Float32bits(x)
	if b&0x7fffffff > 0x7f800000 {
		return uint16(b>>16) | 0x40
	}
	b += 0x7fff + (b>>16)&1
	return uint16(b >> 16)
}
