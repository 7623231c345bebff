package kernels

import (
	"fmt"
	"os"
	"runtime"
	"sync"
	"unsafe"
)

// drv holds the driver library and its entry points, bound once.
var drv struct {
	once sync.Once
	err  error
	path string
	lib  uintptr

	version int // cuDriverGetVersion, e.g. 13000

	cuGetErrorName, cuGetErrorString                     uintptr
	cuInit, cuDriverGetVersion                           uintptr
	cuDeviceGetCount, cuDeviceGet, cuDeviceGetName       uintptr
	cuDeviceGetAttribute, cuDeviceTotalMem               uintptr
	cuDevicePrimaryCtxRetain, cuDevicePrimaryCtxRelease  uintptr
	cuCtxSetCurrent, cuCtxSynchronize                    uintptr
	cuMemAlloc, cuMemFree, cuMemGetInfo                  uintptr
	cuMemcpyHtoD, cuMemcpyDtoH, cuMemcpyDtoD             uintptr
	cuMemcpyHtoDAsync, cuMemcpyDtoHAsync                 uintptr
	cuMemcpyDtoDAsync                                    uintptr
	cuMemsetD8, cuMemsetD32                              uintptr
	cuMemsetD8Async, cuMemsetD32Async                    uintptr
	cuMemHostAlloc, cuMemFreeHost                        uintptr
	cuMemHostGetDevicePointer                            uintptr
	cuStreamCreate, cuStreamDestroy, cuStreamSynchronize uintptr
	cuStreamWaitEvent, cuStreamQuery                     uintptr
	cuEventCreate, cuEventDestroy, cuEventRecord         uintptr
	cuEventSynchronize, cuEventElapsedTime               uintptr
	cuModuleLoadDataEx, cuModuleUnload                   uintptr
	cuModuleGetFunction, cuLaunchKernel                  uintptr
	cuFuncGetAttribute                                   uintptr
}

// loadDriver opens libcuda.so.1, binds the entry points and calls cuInit(0).
// The environment variable GNNREPL_LIBCUDA names the library file to use
// instead of searching.
func loadDriver() error {
	drv.once.Do(func() { drv.err = bindDriver() })
	return drv.err
}

func bindDriver() error {
	lib, path, err := dlopenFirst(os.Getenv("GNNREPL_LIBCUDA"), "libcuda.so.1", "libcuda.so")
	if err != nil {
		return err
	}
	drv.lib, drv.path = lib, path
	binds := []struct {
		dst   *uintptr
		names []string
	}{
		{&drv.cuGetErrorName, []string{"cuGetErrorName"}},
		{&drv.cuGetErrorString, []string{"cuGetErrorString"}},
		{&drv.cuInit, []string{"cuInit"}},
		{&drv.cuDriverGetVersion, []string{"cuDriverGetVersion"}},
		{&drv.cuDeviceGetCount, []string{"cuDeviceGetCount"}},
		{&drv.cuDeviceGet, []string{"cuDeviceGet"}},
		{&drv.cuDeviceGetName, []string{"cuDeviceGetName"}},
		{&drv.cuDeviceGetAttribute, []string{"cuDeviceGetAttribute"}},
		{&drv.cuDeviceTotalMem, []string{"cuDeviceTotalMem_v2", "cuDeviceTotalMem"}},
		{&drv.cuDevicePrimaryCtxRetain, []string{"cuDevicePrimaryCtxRetain"}},
		{&drv.cuDevicePrimaryCtxRelease, []string{"cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease"}},
		{&drv.cuCtxSetCurrent, []string{"cuCtxSetCurrent"}},
		{&drv.cuCtxSynchronize, []string{"cuCtxSynchronize"}},
		{&drv.cuMemAlloc, []string{"cuMemAlloc_v2"}},
		{&drv.cuMemFree, []string{"cuMemFree_v2"}},
		{&drv.cuMemGetInfo, []string{"cuMemGetInfo_v2"}},
		{&drv.cuMemcpyHtoD, []string{"cuMemcpyHtoD_v2"}},
		{&drv.cuMemcpyDtoH, []string{"cuMemcpyDtoH_v2"}},
		{&drv.cuMemcpyDtoD, []string{"cuMemcpyDtoD_v2"}},
		{&drv.cuMemcpyHtoDAsync, []string{"cuMemcpyHtoDAsync_v2"}},
		{&drv.cuMemcpyDtoHAsync, []string{"cuMemcpyDtoHAsync_v2"}},
		{&drv.cuMemcpyDtoDAsync, []string{"cuMemcpyDtoDAsync_v2"}},
		{&drv.cuMemsetD8, []string{"cuMemsetD8_v2"}},
		{&drv.cuMemsetD32, []string{"cuMemsetD32_v2"}},
		{&drv.cuMemsetD8Async, []string{"cuMemsetD8Async"}},
		{&drv.cuMemsetD32Async, []string{"cuMemsetD32Async"}},
		{&drv.cuMemHostAlloc, []string{"cuMemHostAlloc"}},
		{&drv.cuMemFreeHost, []string{"cuMemFreeHost"}},
		{&drv.cuMemHostGetDevicePointer, []string{"cuMemHostGetDevicePointer_v2"}},
		{&drv.cuStreamCreate, []string{"cuStreamCreate"}},
		{&drv.cuStreamDestroy, []string{"cuStreamDestroy_v2"}},
		{&drv.cuStreamSynchronize, []string{"cuStreamSynchronize"}},
		{&drv.cuStreamWaitEvent, []string{"cuStreamWaitEvent"}},
		{&drv.cuStreamQuery, []string{"cuStreamQuery"}},
		{&drv.cuEventCreate, []string{"cuEventCreate"}},
		{&drv.cuEventDestroy, []string{"cuEventDestroy_v2"}},
		{&drv.cuEventRecord, []string{"cuEventRecord"}},
		{&drv.cuEventSynchronize, []string{"cuEventSynchronize"}},
		// CUDA 12.8 added cuEventElapsedTime_v2 and CUDA 13 headers map the
		// plain name to it; both take (float*, CUevent, CUevent).
		{&drv.cuEventElapsedTime, []string{"cuEventElapsedTime_v2", "cuEventElapsedTime"}},
		{&drv.cuModuleLoadDataEx, []string{"cuModuleLoadDataEx"}},
		{&drv.cuModuleUnload, []string{"cuModuleUnload"}},
		{&drv.cuModuleGetFunction, []string{"cuModuleGetFunction"}},
		{&drv.cuLaunchKernel, []string{"cuLaunchKernel"}},
		{&drv.cuFuncGetAttribute, []string{"cuFuncGetAttribute"}},
	}
	for _, b := range binds {
		p, err := sym(lib, b.names...)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		*b.dst = p
	}
	if err := check("cuInit", call(drv.cuInit, 0)); err != nil {
		return fmt.Errorf("%w: %v", ErrNoCUDA, err)
	}
	var v int32
	if err := check("cuDriverGetVersion", call(drv.cuDriverGetVersion, uintptr(unsafe.Pointer(&v)))); err != nil {
		return err
	}
	drv.version = int(v)
	return nil
}

// check turns a CUresult into nil or a *DriverError.
func check(fn string, res int) error {
	if res == 0 {
		return nil
	}
	e := &DriverError{Func: fn, Code: res, Name: "CUDA_ERROR_UNKNOWN_CODE", Desc: "unrecognized CUresult"}
	if drv.cuGetErrorName != 0 {
		var p *byte
		if call(drv.cuGetErrorName, uintptr(res), uintptr(unsafe.Pointer(&p))) == 0 {
			e.Name = goString(p)
		}
		var q *byte
		if call(drv.cuGetErrorString, uintptr(res), uintptr(unsafe.Pointer(&q))) == 0 {
			e.Desc = goString(q)
		}
	}
	return e
}

// DriverVersion returns the CUDA version the driver supports, as
// major*1000 + minor*10 (13000 for CUDA 13.0), and the library path that was
// loaded. It returns an error wrapping ErrNoCUDA when the driver is absent.
func DriverVersion() (version int, path string, err error) {
	if err := loadDriver(); err != nil {
		return 0, "", err
	}
	return drv.version, drv.path, nil
}

// DeviceCount returns the number of CUDA devices the driver sees.
func DeviceCount() (int, error) {
	if err := loadDriver(); err != nil {
		return 0, err
	}
	var n int32
	if err := check("cuDeviceGetCount", call(drv.cuDeviceGetCount, uintptr(unsafe.Pointer(&n)))); err != nil {
		return 0, err
	}
	return int(n), nil
}

// Available reports whether CUDA kernels can run here: the driver loads,
// initializes and sees at least one device. When ok is false, why says what
// is missing (for `gnnrepl doctor` and for tests that skip); when ok is true,
// why describes the driver and the first device.
func Available() (ok bool, why string) {
	n, err := DeviceCount()
	if err != nil {
		return false, err.Error()
	}
	if n == 0 {
		return false, "kernels: the CUDA driver sees no device"
	}
	d, err := Open(0)
	if err != nil {
		return false, err.Error()
	}
	info := d.Info()
	return true, fmt.Sprintf("CUDA driver %d.%d (%s), %d device(s); cuda:0 %s, sm_%d%d, %.1f GiB",
		drv.version/1000, drv.version%1000/10, drv.path, n, info.Name, info.Major, info.Minor,
		float64(info.TotalMem)/(1<<30))
}

// Device attribute numbers (CUdevice_attribute).
const (
	attrMaxThreadsPerBlock     = 1
	attrMaxSharedPerBlock      = 8
	attrWarpSize               = 10
	attrClockRate              = 13
	attrMultiprocessorCount    = 16
	attrCanMapHostMemory       = 19
	attrMemoryClockRate        = 36
	attrGlobalMemoryBusWidth   = 37
	attrL2CacheSize            = 38
	attrUnifiedAddressing      = 41
	attrComputeCapabilityMajor = 75
	attrComputeCapabilityMinor = 76
)

// DeviceInfo describes a CUDA device, read with cuDeviceGetName,
// cuDeviceTotalMem and cuDeviceGetAttribute.
type DeviceInfo struct {
	Ordinal          int    // N in "cuda:N"
	Name             string // e.g. "NVIDIA H200"
	Major, Minor     int    // compute capability (9, 0 for Hopper)
	TotalMem         uint64 // bytes of device memory
	Multiprocessors  int
	L2Bytes          int
	MaxThreadsBlock  int
	MaxSharedBlock   int  // bytes of shared memory per block without opt-in
	ClockKHz         int  // peak SM clock
	MemClockKHz      int  // peak memory clock, 0 if the driver does not say
	MemBusWidthBits  int  // 0 if the driver does not say
	UnifiedAddresses bool // UVA: host and device pointers share one space
	CanMapHost       bool // pinned host memory can be mapped into the device
}

// PeakBandwidth returns the theoretical device-memory bandwidth in bytes/s,
// 2 * memory clock * bus width / 8 (double data rate), or 0 when the driver
// reports neither attribute.
func (i DeviceInfo) PeakBandwidth() float64 {
	return 2 * float64(i.MemClockKHz) * 1e3 * float64(i.MemBusWidthBits) / 8
}

// Device is one CUDA device with its primary context retained. Devices are
// shared: Open returns the same *Device for the same ordinal. All methods
// are safe for concurrent use.
type Device struct {
	ordinal int
	dev     int32
	ctx     uintptr
	info    DeviceInfo

	modMu   sync.Mutex
	def     *Stream
	modules map[string]*Module
	funcs   map[string]*Function
}

var devices struct {
	sync.Mutex
	m map[int]*Device
}

// Open returns device N ("cuda:N") with its primary context retained
// (cuDevicePrimaryCtxRetain: the context the CUDA runtime, cuBLAS and
// PyTorch share, so no cuCtxCreate, whose signature changed to
// cuCtxCreate_v4 in CUDA 13). The context is kept for the life of the
// process. Errors wrap ErrNoCUDA when there is no driver or no such device.
func Open(ordinal int) (*Device, error) {
	if err := loadDriver(); err != nil {
		return nil, err
	}
	devices.Lock()
	defer devices.Unlock()
	if d := devices.m[ordinal]; d != nil {
		return d, nil
	}
	n, err := DeviceCount()
	if err != nil {
		return nil, err
	}
	if ordinal < 0 || ordinal >= n {
		return nil, fmt.Errorf("%w: cuda:%d requested, the driver sees %d device(s)", ErrNoCUDA, ordinal, n)
	}
	d := &Device{ordinal: ordinal}
	if err := check("cuDeviceGet", call(drv.cuDeviceGet, uintptr(unsafe.Pointer(&d.dev)), uintptr(ordinal))); err != nil {
		return nil, err
	}
	if err := check("cuDevicePrimaryCtxRetain", call(drv.cuDevicePrimaryCtxRetain, uintptr(unsafe.Pointer(&d.ctx)), uintptr(d.dev))); err != nil {
		return nil, err
	}
	if err := d.readInfo(); err != nil {
		return nil, err
	}
	if devices.m == nil {
		devices.m = map[int]*Device{}
	}
	devices.m[ordinal] = d
	return d, nil
}

func (d *Device) readInfo() error {
	i := &d.info
	i.Ordinal = d.ordinal
	name := make([]byte, 256)
	if err := check("cuDeviceGetName", call(drv.cuDeviceGetName, uintptr(unsafe.Pointer(&name[0])), uintptr(len(name)), uintptr(d.dev))); err != nil {
		return err
	}
	i.Name = goString(&name[0])
	var mem uint64
	if err := check("cuDeviceTotalMem_v2", call(drv.cuDeviceTotalMem, uintptr(unsafe.Pointer(&mem)), uintptr(d.dev))); err != nil {
		return err
	}
	i.TotalMem = mem
	for _, a := range []struct {
		attr     int
		dst      *int
		optional bool
	}{
		{attrComputeCapabilityMajor, &i.Major, false},
		{attrComputeCapabilityMinor, &i.Minor, false},
		{attrMultiprocessorCount, &i.Multiprocessors, false},
		{attrL2CacheSize, &i.L2Bytes, true},
		{attrMaxThreadsPerBlock, &i.MaxThreadsBlock, false},
		{attrMaxSharedPerBlock, &i.MaxSharedBlock, false},
		{attrClockRate, &i.ClockKHz, true},
		{attrMemoryClockRate, &i.MemClockKHz, true},
		{attrGlobalMemoryBusWidth, &i.MemBusWidthBits, true},
	} {
		v, err := d.attribute(a.attr)
		if err != nil && !a.optional {
			return err
		}
		*a.dst = v
	}
	if v, _ := d.attribute(attrUnifiedAddressing); v != 0 {
		i.UnifiedAddresses = true
	}
	if v, _ := d.attribute(attrCanMapHostMemory); v != 0 {
		i.CanMapHost = true
	}
	return nil
}

func (d *Device) attribute(attr int) (int, error) {
	var v int32
	err := check("cuDeviceGetAttribute", call(drv.cuDeviceGetAttribute, uintptr(unsafe.Pointer(&v)), uintptr(attr), uintptr(d.dev)))
	return int(v), err
}

// Info returns the device's description.
func (d *Device) Info() DeviceInfo { return d.info }

// Ordinal returns N of "cuda:N".
func (d *Device) Ordinal() int { return d.ordinal }

// String returns "cuda:N".
func (d *Device) String() string { return fmt.Sprintf("cuda:%d", d.ordinal) }

// bind locks the calling goroutine to its OS thread and makes the device's
// context current there. On success the caller must call the returned
// function (which unlocks the thread) when its driver calls are done.
func (d *Device) bind() (unlock func(), err error) {
	runtime.LockOSThread()
	if err := check("cuCtxSetCurrent", call(drv.cuCtxSetCurrent, d.ctx)); err != nil {
		runtime.UnlockOSThread()
		return nil, err
	}
	return runtime.UnlockOSThread, nil
}

// MakeCurrent makes the device's primary context current on the calling
// OS thread (cuCtxSetCurrent), for a library that works on the current
// context (the CUDA runtime inside NCCL). The caller must have locked the
// goroutine to its thread (runtime.LockOSThread) for this to mean
// anything.
func (d *Device) MakeCurrent() error {
	return check("cuCtxSetCurrent", call(drv.cuCtxSetCurrent, d.ctx))
}

// Synchronize blocks until all work queued on the device has finished
// (cuCtxSynchronize), returning the first asynchronous error if any.
func (d *Device) Synchronize() error {
	unlock, err := d.bind()
	if err != nil {
		return err
	}
	defer unlock()
	return check("cuCtxSynchronize", call(drv.cuCtxSynchronize))
}
