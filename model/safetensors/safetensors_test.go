package safetensors

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	tensors := []Tensor{
		{Name: "a.weight", Shape: []int{2, 3}, Data: []float32{1, -2, 3.5, 0, 1e-3, -7}},
		{Name: "b", Shape: []int{1}, Data: []float32{42}},
	}
	for _, dt := range []DType{F32, BF16} {
		t.Run(string(dt), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "m.safetensors")
			if err := WriteFile(path, tensors, dt, map[string]string{"format": "pt"}); err != nil {
				t.Fatal(err)
			}
			raw, _ := os.ReadFile(path)
			if n := binary.LittleEndian.Uint64(raw); (8+n)%8 != 0 {
				t.Errorf("header length %d leaves data unaligned", n)
			}
			f, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if f.Metadata["format"] != "pt" {
				t.Errorf("metadata = %v", f.Metadata)
			}
			if got := strings.Join(f.Names(), ","); got != "a.weight,b" {
				t.Errorf("names = %s", got)
			}
			for _, want := range tensors {
				got := make([]float32, len(want.Data))
				if err := f.ReadFloat32(want.Name, got); err != nil {
					t.Fatal(err)
				}
				for i := range got {
					tol := 0.0
					if dt == BF16 {
						tol = math.Abs(float64(want.Data[i])) / 128 // 8 bits of mantissa
					}
					if math.Abs(float64(got[i]-want.Data[i])) > tol {
						t.Errorf("%s[%d] = %g, want %g", want.Name, i, got[i], want.Data[i])
					}
				}
			}
		})
	}
}

func TestDecodeF16AndBF16(t *testing.T) {
	for _, tc := range []struct {
		dtype DType
		bits  uint16
		want  float32
	}{
		{F16, 0x3c00, 1},
		{F16, 0xc000, -2},
		{F16, 0x7bff, 65504},
		{F16, 0x0001, 5.960464477539063e-08}, // smallest subnormal
		{F16, 0x8000, float32(math.Copysign(0, -1))},
		{F16, 0x7c00, float32(math.Inf(1))},
		{BF16, 0x3f80, 1},
		{BF16, 0xc0a0, -5},
	} {
		var b [2]byte
		binary.LittleEndian.PutUint16(b[:], tc.bits)
		got := make([]float32, 1)
		if err := Decode(got, tc.dtype, b[:]); err != nil {
			t.Fatal(err)
		}
		if got[0] != tc.want {
			t.Errorf("%s %#04x = %g, want %g", tc.dtype, tc.bits, got[0], tc.want)
		}
	}
	// bf16 rounding is to nearest even.
	for _, tc := range []struct {
		in   float32
		want uint16
	}{
		{1, 0x3f80},
		{math.Float32frombits(0x3f808000), 0x3f80}, // tie, even stays
		{math.Float32frombits(0x3f818000), 0x3f82}, // tie, odd rounds up
		{math.Float32frombits(0x3f808001), 0x3f81},
	} {
		if got := Float32ToBF16(tc.in); got != tc.want {
			t.Errorf("bf16(%#x) = %#x, want %#x", math.Float32bits(tc.in), got, tc.want)
		}
	}
}

func TestBadFiles(t *testing.T) {
	header := func(h string) []byte {
		var b bytes.Buffer
		binary.Write(&b, binary.LittleEndian, uint64(len(h)))
		b.WriteString(h)
		return b.Bytes()
	}
	for _, tc := range []struct {
		name, want string
		data       []byte
	}{
		{"short", "too short", []byte{1, 2}},
		{"huge header", "does not fit", header("{}")[:8]},
		{"bad json", "header", header("{nope")},
		{"offsets", "outside data", header(`{"x":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}`)},
		{"size mismatch", "bytes for shape", append(header(`{"x":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}}`), make([]byte, 8)...)},
		{"negative dims", "bad shape", append(header(`{"x":{"dtype":"F32","shape":[-2,-3],"data_offsets":[0,24]}}`), make([]byte, 24)...)},
		{"overflowing shape", "bad shape", append(header(`{"x":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,0]}}`), make([]byte, 8)...)},
		{"dtype", "unknown dtype", append(header(`{"x":{"dtype":"Q4","shape":[1],"data_offsets":[0,1]}}`), 0)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "huge header" {
				binary.LittleEndian.PutUint64(tc.data, 1<<40)
			}
			path := filepath.Join(t.TempDir(), "bad.safetensors")
			os.WriteFile(path, tc.data, 0o644)
			f, err := Open(path)
			if err == nil {
				f.Close()
				t.Fatal("Open succeeded")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q does not mention %q", err, tc.want)
			}
		})
	}
}

func TestShardedDir(t *testing.T) {
	dir := t.TempDir()
	if err := WriteFile(filepath.Join(dir, "model-00001-of-00002.safetensors"), []Tensor{{Name: "x", Shape: []int{2}, Data: []float32{1, 2}}}, F32, nil); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(filepath.Join(dir, "model-00002-of-00002.safetensors"), []Tensor{{Name: "y", Shape: []int{1}, Data: []float32{3}}}, BF16, nil); err != nil {
		t.Fatal(err)
	}
	idx, _ := json.Marshal(map[string]any{"weight_map": map[string]string{
		"x": "model-00001-of-00002.safetensors", "y": "model-00002-of-00002.safetensors"}})
	os.WriteFile(filepath.Join(dir, IndexFile), idx, 0o644)
	d, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	x, y := make([]float32, 2), make([]float32, 1)
	if err := d.ReadFloat32("x", x); err != nil {
		t.Fatal(err)
	}
	if err := d.ReadFloat32("y", y); err != nil {
		t.Fatal(err)
	}
	if x[1] != 2 || y[0] != 3 {
		t.Fatalf("x=%v y=%v", x, y)
	}
	if err := d.ReadFloat32("z", y); err == nil {
		t.Fatal("missing tensor read succeeded")
	}
}
