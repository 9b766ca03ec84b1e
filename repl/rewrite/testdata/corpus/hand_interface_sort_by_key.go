package main

import (
	"fmt"
	"sort"
	"strings"
)

type File struct {
	Name string
	Size int64
}

type bySize []File

func (s bySize) Len() int { return len(s) }
func (s bySize) Less(i, j int) bool {
	if s[i].Size != s[j].Size {
		return s[i].Size > s[j].Size
	}
	return s[i].Name < s[j].Name
}
func (s bySize) Swap(i, j int) { s[i], s[j] = s[j], s[i] }

func human(n int64) string {
	units := []string{"B", "KB", "MB", "GB"}
	f := float64(n)
	i := 0
	for f >= 1024 && i < len(units)-1 {
		f /= 1024
		i++
	}
	return fmt.Sprintf("%.1f%s", f, units[i])
}

func main() {
	files := []File{{"a.txt", 1200}, {"b.bin", 5 << 20}, {"c.log", 1200}, {"d.iso", 3 << 30}}
	sort.Stable(bySize(files))
	var parts []string
	for _, f := range files {
		parts = append(parts, f.Name+"="+human(f.Size))
	}
	fmt.Println(strings.Join(parts, ", "))
}
