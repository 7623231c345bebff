package kernels

import (
	"embed"
	"fmt"
	"math"
	"strings"
	"unsafe"
)

// ptxFS holds the PTX generated from kernels/*.cu (see gen.go).
//
//go:embed ptx/*.ptx
var ptxFS embed.FS

// PTXModules returns the names of the embedded PTX modules, one per .cu
// source ("elementwise", "spmm", ...).
func PTXModules() []string {
	ents, err := ptxFS.ReadDir("ptx")
	if err != nil {
		panic(err) // embedded at build time
	}
	var out []string
	for _, e := range ents {
		out = append(out, strings.TrimSuffix(e.Name(), ".ptx"))
	}
	return out
}

// PTX returns the embedded PTX text of module name, or an error if there is
// no such module.
func PTX(name string) ([]byte, error) {
	b, err := ptxFS.ReadFile("ptx/" + name + ".ptx")
	if err != nil {
		return nil, fmt.Errorf("kernels: no embedded PTX module %q", name)
	}
	return b, nil
}

// Module is PTX loaded into a device's context (cuModuleLoadDataEx; the
// driver JIT-compiles it for the device and caches the result).
type Module struct {
	dev *Device
	h   uintptr
}

// JIT options (CUjit_option).
const (
	jitErrorLogBuffer          = 5
	jitErrorLogBufferSizeBytes = 6
)

// LoadModule loads PTX (or a cubin) into d's context. A PTX that does not
// compile is reported with the JIT's error log.
func (d *Device) LoadModule(image []byte) (*Module, error) {
	buf := make([]byte, len(image)+1) // NUL-terminated
	copy(buf, image)
	logBuf := make([]byte, 8192)
	opts := []int32{jitErrorLogBuffer, jitErrorLogBufferSizeBytes}
	vals := []uintptr{uintptr(unsafe.Pointer(&logBuf[0])), uintptr(len(logBuf))}
	unlock, err := d.bind()
	if err != nil {
		return nil, err
	}
	defer unlock()
	m := &Module{dev: d}
	res := call(drv.cuModuleLoadDataEx, uintptr(unsafe.Pointer(&m.h)), uintptr(unsafe.Pointer(&buf[0])),
		uintptr(len(opts)), uintptr(unsafe.Pointer(&opts[0])), uintptr(unsafe.Pointer(&vals[0])))
	if err := check("cuModuleLoadDataEx", res); err != nil {
		if log := goString(&logBuf[0]); log != "" {
			return nil, fmt.Errorf("%w\nJIT log:\n%s", err, log)
		}
		return nil, err
	}
	return m, nil
}

// Unload releases the module (cuModuleUnload); its functions become invalid.
func (m *Module) Unload() error {
	if m.h == 0 {
		return nil
	}
	unlock, err := m.dev.bind()
	if err != nil {
		return err
	}
	defer unlock()
	err = check("cuModuleUnload", call(drv.cuModuleUnload, m.h))
	m.h = 0
	return err
}

// Function is a kernel entry point of a loaded module.
type Function struct {
	dev  *Device
	name string
	h    uintptr
}

// Function looks up the extern "C" kernel name in m (cuModuleGetFunction).
func (m *Module) Function(name string) (*Function, error) {
	unlock, err := m.dev.bind()
	if err != nil {
		return nil, err
	}
	defer unlock()
	cname := append([]byte(name), 0)
	f := &Function{dev: m.dev, name: name}
	if err := check("cuModuleGetFunction", call(drv.cuModuleGetFunction, uintptr(unsafe.Pointer(&f.h)), m.h, uintptr(unsafe.Pointer(&cname[0])))); err != nil {
		return nil, fmt.Errorf("kernel %s: %w", name, err)
	}
	return f, nil
}

// Name returns the kernel's name.
func (f *Function) Name() string { return f.name }

// kernel returns the function name from the embedded module mod, loading
// the module into d on first use; functions are cached per device.
func (d *Device) kernel(mod, name string) (*Function, error) {
	d.modMu.Lock()
	defer d.modMu.Unlock()
	key := mod + "." + name
	if f := d.funcs[key]; f != nil {
		return f, nil
	}
	m := d.modules[mod]
	if m == nil {
		img, err := PTX(mod)
		if err != nil {
			return nil, err
		}
		m, err = d.LoadModule(img)
		if err != nil {
			return nil, fmt.Errorf("loading PTX module %s on %s: %w", mod, d, err)
		}
		if d.modules == nil {
			d.modules = map[string]*Module{}
			d.funcs = map[string]*Function{}
		}
		d.modules[mod] = m
	}
	f, err := m.Function(name)
	if err != nil {
		return nil, err
	}
	d.funcs[key] = f
	return f, nil
}

// Dim3 is a grid or block size.
type Dim3 struct{ X, Y, Z int }

// Launch queues f on s over grid blocks of block threads with shared bytes
// of dynamic shared memory (cuLaunchKernel). Each argument is passed by
// value and must have the C type of the kernel's parameter: DevicePtr or
// uintptr for pointers, int32 / uint32 / float32 for 4-byte parameters,
// int64 / uint64 / float64 for 8-byte ones. A Go int is rejected (its C
// width is ambiguous). Errors in the kernel itself surface at the next
// synchronizing call.
func Launch(s *Stream, f *Function, grid, block Dim3, shared int, args ...any) error {
	if s == nil || f == nil {
		argPanic("Launch", "nil stream or function")
	}
	slots := make([]uint64, len(args))
	params := make([]unsafe.Pointer, len(args)+1)
	for i, a := range args {
		switch v := a.(type) {
		case DevicePtr:
			slots[i] = uint64(v)
		case uintptr:
			slots[i] = uint64(v)
		case int32:
			slots[i] = uint64(uint32(v))
		case uint32:
			slots[i] = uint64(v)
		case float32:
			slots[i] = uint64(math.Float32bits(v))
		case int64:
			slots[i] = uint64(v)
		case uint64:
			slots[i] = v
		case float64:
			slots[i] = math.Float64bits(v)
		default:
			argPanic("Launch", "kernel %s argument %d has unsupported type %T", f.name, i, a)
		}
		params[i] = unsafe.Pointer(&slots[i])
	}
	for _, g := range []int{grid.X, grid.Y, grid.Z, block.X, block.Y, block.Z} {
		if g <= 0 || g > math.MaxInt32 {
			argPanic("Launch", "kernel %s grid %v block %v", f.name, grid, block)
		}
	}
	unlock, err := s.dev.bind()
	if err != nil {
		return err
	}
	defer unlock()
	res := call(drv.cuLaunchKernel, f.h,
		uintptr(grid.X), uintptr(grid.Y), uintptr(grid.Z),
		uintptr(block.X), uintptr(block.Y), uintptr(block.Z),
		uintptr(shared), s.h, uintptr(unsafe.Pointer(&params[0])), 0)
	if err := check("cuLaunchKernel", res); err != nil {
		return fmt.Errorf("kernel %s grid %v block %v: %w", f.name, grid, block, err)
	}
	return nil
}

// launch looks up mod.name on s's device and launches it.
func launch(s *Stream, mod, name string, grid, block Dim3, shared int, args ...any) error {
	f, err := s.dev.kernel(mod, name)
	if err != nil {
		return err
	}
	return Launch(s, f, grid, block, shared, args...)
}
