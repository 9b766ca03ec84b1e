package safetensors

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
)

// Tensor is one float32 tensor to write.
type Tensor struct {
	Name  string
	Shape []int
	Data  []float32
}

// Write encodes tensors (in the given order) as dtype F32 or BF16 with the
// given metadata. The header is padded with spaces to a multiple of 8 bytes,
// as the reference implementation does, so tensor data stays aligned.
func Write(w io.Writer, tensors []Tensor, dtype DType, metadata map[string]string) error {
	if dtype != F32 && dtype != BF16 {
		return fmt.Errorf("safetensors: cannot write dtype %s (F32 or BF16)", dtype)
	}
	es := int64(dtype.Size())
	header := map[string]any{}
	if len(metadata) > 0 {
		header["__metadata__"] = metadata
	}
	var off int64
	for _, t := range tensors {
		n := 1
		for _, d := range t.Shape {
			n *= d
		}
		if n != len(t.Data) {
			return fmt.Errorf("safetensors: tensor %q: shape %v has %d elements, data %d", t.Name, t.Shape, n, len(t.Data))
		}
		if _, dup := header[t.Name]; dup {
			return fmt.Errorf("safetensors: duplicate tensor %q", t.Name)
		}
		shape := t.Shape
		if shape == nil {
			shape = []int{}
		}
		header[t.Name] = TensorInfo{DType: dtype, Shape: shape, DataOffsets: [2]int64{off, off + int64(n)*es}}
		off += int64(n) * es
	}
	hj, err := json.Marshal(header)
	if err != nil {
		return fmt.Errorf("safetensors: header: %w", err)
	}
	for len(hj)%8 != 0 {
		hj = append(hj, ' ')
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	var lenBuf [8]byte
	binary.LittleEndian.PutUint64(lenBuf[:], uint64(len(hj)))
	bw.Write(lenBuf[:])
	bw.Write(hj)
	var buf [4]byte
	for _, t := range tensors {
		for _, x := range t.Data {
			if dtype == F32 {
				binary.LittleEndian.PutUint32(buf[:], math.Float32bits(x))
				bw.Write(buf[:4])
			} else {
				binary.LittleEndian.PutUint16(buf[:], Float32ToBF16(x))
				bw.Write(buf[:2])
			}
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("safetensors: write: %w", err)
	}
	return nil
}

// WriteFile writes tensors to path atomically: a temporary file in the same
// directory renamed over path once complete, so an interrupted save never
// leaves a truncated checkpoint.
func WriteFile(path string, tensors []Tensor, dtype DType, metadata map[string]string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path))
	if err != nil {
		return fmt.Errorf("safetensors: %w", err)
	}
	// CreateTemp makes the file private; a checkpoint is meant to be shared.
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return fmt.Errorf("safetensors: %w", err)
	}
	if err := Write(tmp, tensors, dtype, metadata); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("safetensors: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("safetensors: %w", err)
	}
	return nil
}

// Dir is a checkpoint directory: one model.safetensors or several shards
// listed in model.safetensors.index.json.
type Dir struct {
	files  []*File
	byName map[string]*File
}

// IndexFile is the name of the shard index Hugging Face writes.
const IndexFile = "model.safetensors.index.json"

// OpenDir opens the safetensors weights of a checkpoint directory.
func OpenDir(dir string) (*Dir, error) {
	return openDir(filepath.Join(dir, IndexFile), func(name string) ([]byte, error) {
		return os.ReadFile(filepath.Join(dir, name))
	}, func(name string) (*File, error) {
		return Open(filepath.Join(dir, name))
	})
}

// OpenFS opens the safetensors weights of a checkpoint in a file system
// (an embedded one): each file is read into memory, not mapped.
func OpenFS(fsys fs.FS) (*Dir, error) {
	return openDir(IndexFile, func(name string) ([]byte, error) {
		return fs.ReadFile(fsys, name)
	}, func(name string) (*File, error) {
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, fmt.Errorf("safetensors: %w", err)
		}
		return Parse(name, data)
	})
}

// openDir reads the shard index with readFile (none: one model.safetensors)
// and opens every shard with open. indexPath names the index in errors.
func openDir(indexPath string, readFile func(name string) ([]byte, error), open func(name string) (*File, error)) (*Dir, error) {
	d := &Dir{byName: map[string]*File{}}
	idx, err := readFile(IndexFile)
	var shards []string
	switch {
	case err == nil:
		var index struct {
			WeightMap map[string]string `json:"weight_map"`
		}
		if err := json.Unmarshal(idx, &index); err != nil {
			return nil, fmt.Errorf("safetensors: %s: %w", indexPath, err)
		}
		seen := map[string]bool{}
		for _, s := range index.WeightMap {
			if !seen[s] {
				seen[s] = true
				shards = append(shards, s)
			}
		}
		sort.Strings(shards)
	case errors.Is(err, fs.ErrNotExist):
		shards = []string{"model.safetensors"}
	default:
		return nil, fmt.Errorf("safetensors: %w", err)
	}
	for _, s := range shards {
		if filepath.Base(s) != s {
			d.Close()
			return nil, fmt.Errorf("safetensors: shard name %q is not a plain file name", s)
		}
		f, err := open(s)
		if err != nil {
			d.Close()
			return nil, err
		}
		d.files = append(d.files, f)
		for name := range f.Tensors {
			if _, dup := d.byName[name]; dup {
				d.Close()
				return nil, fmt.Errorf("safetensors: tensor %q appears in two shards", name)
			}
			d.byName[name] = f
		}
	}
	return d, nil
}

// Has reports whether the checkpoint holds the named tensor.
func (d *Dir) Has(name string) bool { _, ok := d.byName[name]; return ok }

// Info returns the header entry of the named tensor.
func (d *Dir) Info(name string) (TensorInfo, bool) {
	f, ok := d.byName[name]
	if !ok {
		return TensorInfo{}, false
	}
	return f.Tensors[name], true
}

// ReadFloat32 converts the named tensor into dst.
func (d *Dir) ReadFloat32(name string, dst []float32) error {
	f, ok := d.byName[name]
	if !ok {
		return fmt.Errorf("safetensors: checkpoint has no tensor %q", name)
	}
	return f.ReadFloat32(name, dst)
}

// Close unmaps every shard.
func (d *Dir) Close() error {
	var first error
	for _, f := range d.files {
		if err := f.Close(); err != nil && first == nil {
			first = err
		}
	}
	d.files = nil
	return first
}
