//! With the `gpu` feature: builds the turn kernel (`src/duel/gpu/turn.cu`) twice, for the
//! device through NVRTC (PTX for any GPU from compute capability 8.0 on, and a cubin for the
//! H100's sm_90, embedded in the binary so that running it needs only the driver) and for
//! the host through `cc` with a shim (the CPU-run test of its logic). Without the feature it
//! does nothing.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    #[cfg(feature = "gpu")]
    gpu::build();
}

#[cfg(feature = "gpu")]
mod gpu {
    use std::ffi::{CStr, CString, c_char, c_int, c_void};
    use std::path::{Path, PathBuf};
    use std::process::Command;

    const SOURCE: &str = "src/duel/gpu/turn.cu";

    pub fn build() {
        for file in [SOURCE, "src/duel/gpu/shim.h", "src/duel/gpu/host.cpp"] {
            println!("cargo:rerun-if-changed={file}");
        }
        println!("cargo:rerun-if-env-changed=YZ_NVRTC");
        cc::Build::new()
            .cpp(true)
            .file("src/duel/gpu/host.cpp")
            .flag("-std=c++17")
            .flag_if_supported("-ffp-contract=off")
            .flag_if_supported("-fno-strict-aliasing")
            .flag_if_supported("-fno-exceptions")
            .flag_if_supported("-fno-rtti")
            // No C++ library at run time (host.cpp allocates with malloc): the binary runs
            // where the machine's libstdc++ is older than the build's.
            .cpp_link_stdlib(None)
            .opt_level(2)
            .compile("yz_turn_host");
        let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
        let source = std::fs::read_to_string(SOURCE).expect("the kernel's source");
        let nvrtc = Nvrtc::load();
        let ptx = nvrtc.compile(&source, &["--gpu-architecture=compute_80"], false);
        std::fs::write(out.join("turn.ptx"), ptx).expect("writing the PTX");
        let cubin = nvrtc.compile(&source, &["--gpu-architecture=sm_90"], true);
        std::fs::write(out.join("turn.sm_90.cubin"), cubin).expect("writing the cubin");
    }

    type Program = *mut c_void;

    /// The few NVRTC entry points the build needs, from the library found at build time.
    struct Nvrtc {
        library: libloading::Library,
    }

    const HOW: &str = "the `gpu` feature compiles the CUDA kernel at build time with NVRTC: install it with \
                       `pip install nvidia-cuda-nvrtc-cu12` (no GPU needed), or point YZ_NVRTC at a libnvrtc.so \
                       of CUDA 12 (for example /usr/local/cuda/lib64/libnvrtc.so)";

    impl Nvrtc {
        fn load() -> Nvrtc {
            let path = find_nvrtc().unwrap_or_else(|| panic!("no libnvrtc found: {HOW}"));
            // SAFETY: NVRTC's initialisers have no preconditions.
            let library = unsafe { libloading::Library::new(&path) }
                .unwrap_or_else(|e| panic!("cannot load {}: {e}; {HOW}", path.display()));
            Nvrtc { library }
        }

        fn symbol<T: Copy>(&self, name: &str) -> T {
            // SAFETY: every caller names the type of NVRTC's own declaration (nvrtc.h).
            unsafe { *self.library.get::<T>(name.as_bytes()).unwrap_or_else(|e| panic!("NVRTC lacks {name}: {e}")) }
        }

        /// Compiles `source` with `options` (plus no contraction into FMA) to PTX, or to a
        /// cubin when `cubin`.
        fn compile(&self, source: &str, options: &[&str], cubin: bool) -> Vec<u8> {
            type Create = unsafe extern "C" fn(
                *mut Program,
                *const c_char,
                *const c_char,
                c_int,
                *const *const c_char,
                *const *const c_char,
            ) -> c_int;
            type Compile = unsafe extern "C" fn(Program, c_int, *const *const c_char) -> c_int;
            type Size = unsafe extern "C" fn(Program, *mut usize) -> c_int;
            type Get = unsafe extern "C" fn(Program, *mut c_char) -> c_int;
            type Destroy = unsafe extern "C" fn(*mut Program) -> c_int;
            let source = CString::new(source).expect("no NUL in the source");
            let name = CString::new("turn.cu").unwrap();
            let mut all: Vec<CString> = options.iter().map(|o| CString::new(*o).unwrap()).collect();
            all.extend(["--fmad=false", "-std=c++17"].map(|o| CString::new(o).unwrap()));
            let pointers: Vec<*const c_char> = all.iter().map(|o| o.as_ptr()).collect();
            let (size_of, get) =
                if cubin { ("nvrtcGetCUBINSize", "nvrtcGetCUBIN") } else { ("nvrtcGetPTXSize", "nvrtcGetPTX") };
            let mut program: Program = std::ptr::null_mut();
            // SAFETY: the calls follow nvrtc.h: a program made, compiled, read into buffers of
            // the sizes NVRTC reports, then destroyed.
            unsafe {
                let status = self.symbol::<Create>("nvrtcCreateProgram")(
                    &mut program,
                    source.as_ptr(),
                    name.as_ptr(),
                    0,
                    std::ptr::null(),
                    std::ptr::null(),
                );
                assert_eq!(status, 0, "nvrtcCreateProgram failed ({status})");
                let status =
                    self.symbol::<Compile>("nvrtcCompileProgram")(program, pointers.len() as c_int, pointers.as_ptr());
                let mut log_size = 0;
                self.symbol::<Size>("nvrtcGetProgramLogSize")(program, &mut log_size);
                let mut log = vec![0 as c_char; log_size.max(1)];
                self.symbol::<Get>("nvrtcGetProgramLog")(program, log.as_mut_ptr());
                let log = CStr::from_ptr(log.as_ptr()).to_string_lossy().into_owned();
                assert_eq!(status, 0, "NVRTC could not compile {SOURCE} ({options:?}):\n{log}");
                if !log.trim().is_empty() {
                    println!("cargo:warning=NVRTC on {SOURCE}: {}", log.trim());
                }
                let mut size = 0;
                self.symbol::<Size>(size_of)(program, &mut size);
                let mut code = vec![0 as c_char; size];
                self.symbol::<Get>(get)(program, code.as_mut_ptr());
                self.symbol::<Destroy>("nvrtcDestroyProgram")(&mut program);
                let mut bytes: Vec<u8> = code.into_iter().map(|c| c as u8).collect();
                if !cubin {
                    // PTX is text: drop the terminating NUL.
                    while bytes.last() == Some(&0) {
                        bytes.pop();
                    }
                }
                bytes
            }
        }
    }

    /// Where libnvrtc is: `YZ_NVRTC`, a CUDA toolkit, or the PyPI package
    /// `nvidia-cuda-nvrtc-cu12` of the `python3` on the path.
    fn find_nvrtc() -> Option<PathBuf> {
        if let Some(path) = std::env::var_os("YZ_NVRTC") {
            return Some(PathBuf::from(path));
        }
        let homes = ["CUDA_HOME", "CUDA_PATH"].into_iter().filter_map(std::env::var_os).map(PathBuf::from);
        let toolkits = homes.chain([PathBuf::from("/usr/local/cuda")]).map(|home| home.join("lib64/libnvrtc.so"));
        let from_pip = Command::new("python3")
            .args(["-c", "import nvidia.cuda_nvrtc as m; print(list(m.__path__)[0])"])
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| Path::new(String::from_utf8_lossy(&o.stdout).trim()).join("lib/libnvrtc.so.12"));
        toolkits.chain(from_pip).find(|p| p.exists())
    }
}
