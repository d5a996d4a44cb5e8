//! The kernel on an NVIDIA GPU through cudarc: the driver (`libcuda.so`) is loaded when a
//! [`Gpu`] is opened, and the kernel comes compiled with the binary (build.rs: a cubin for
//! sm_90, PTX for the others, which the driver compiles on loading).

use std::sync::Arc;

use cudarc::driver::sys::CUfunction_attribute;
use cudarc::driver::{
    CudaContext, CudaFunction, CudaSlice, CudaStream, DevicePtr, DevicePtrMut, DeviceRepr, LaunchConfig, PushKernelArg,
};
use cudarc::nvrtc::Ptx;

use super::batch::{Batch, Params, SHARED_BYTES, TABLES_FLAT, THREADS};
use crate::duel::solve::LayerRows;
use crate::duel::{LayerShape, Space, Tile};

/// The kernel for GPUs of compute capability 8.0 and later, compiled by the driver on loading.
const PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/turn.ptx"));
/// The kernel compiled for the H100 (sm_90): no compilation on loading, and a driver older
/// than the NVRTC that built it still runs it.
const CUBIN_SM90: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/turn.sm_90.cubin"));

/// Movers per launch at most: bounds the plans uploaded at once (13 KB a mover).
const MOVERS_PER_LAUNCH: usize = 4096;

/// Why the GPU could not solve.
#[derive(Debug, thiserror::Error)]
pub enum GpuError {
    /// No driver, or no device.
    #[error("no CUDA GPU could be opened: {0}")]
    Unavailable(String),
    /// A call of the driver failed.
    #[error("CUDA driver error while {doing}: {error}")]
    Driver {
        /// What was being done.
        doing: &'static str,
        /// The driver's error.
        error: String,
    },
}

fn driver(doing: &'static str) -> impl FnOnce(cudarc::driver::DriverError) -> GpuError {
    move |e| GpuError::Driver { doing, error: format!("{e:?}") }
}

// SAFETY: `Params` is `repr(C)`, plain numbers, the layout of `YzParams` in turn.cu.
unsafe impl DeviceRepr for Params {}

/// An opened GPU with the kernel loaded and its constant tables set.
pub struct Gpu {
    context: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    function: CudaFunction,
    /// What the device is, for reports.
    pub name: String,
}

impl std::fmt::Debug for Gpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gpu").field("name", &self.name).finish()
    }
}

impl Gpu {
    /// Opens GPU `ordinal` and loads the kernel.
    ///
    /// # Errors
    /// [`GpuError::Unavailable`] where no driver or no such device is found.
    pub fn open(ordinal: usize) -> Result<Gpu, GpuError> {
        // cudarc panics where libcuda.so cannot be loaded: that is an error here.
        let opened = std::panic::catch_unwind(|| CudaContext::new(ordinal));
        let context = match opened {
            Ok(Ok(context)) => context,
            Ok(Err(e)) => return Err(GpuError::Unavailable(format!("device {ordinal}: {e:?}"))),
            Err(panic) => {
                let said = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                return Err(GpuError::Unavailable(format!("the CUDA driver could not be loaded: {said}")));
            }
        };
        let name = context.name().map_err(driver("naming the device"))?;
        let capability = context.compute_capability().map_err(driver("asking the compute capability"))?;
        let image = if capability == (9, 0) { Ptx::from_binary(CUBIN_SM90.to_vec()) } else { Ptx::from_src(PTX) };
        let module = context.load_module(image).map_err(driver("loading the kernel"))?;
        let function = module.load_function("yz_turn").map_err(driver("finding the kernel"))?;
        function
            .set_attribute(CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, SHARED_BYTES as i32)
            .map_err(driver("asking for the kernel's shared memory"))?;
        let stream = context.default_stream();
        {
            let mut tables = module.get_global("c_tables", &stream).map_err(driver("finding the tables"))?;
            let bytes = bytemuck::bytes_of(&*TABLES_FLAT);
            assert_eq!(tables.len(), bytes.len(), "YzTables and batch::Tables have one layout");
            stream.memcpy_htod(bytes, &mut tables).map_err(driver("setting the tables"))?;
        }
        stream.synchronize().map_err(driver("setting the tables"))?;
        Ok(Gpu { context, stream, function, name })
    }

    /// The GPU of rank `rank` of a node: device `rank` modulo the devices this process
    /// sees (one GPU per rank where there are as many).
    ///
    /// # Errors
    /// As [`Gpu::open`].
    pub fn open_for_rank(rank: usize) -> Result<Gpu, GpuError> {
        let count = std::panic::catch_unwind(CudaContext::device_count)
            .map_err(|_| GpuError::Unavailable("the CUDA driver (libcuda.so) could not be loaded".into()))?
            .map_err(|e| GpuError::Unavailable(format!("{e:?}")))?;
        if count < 1 {
            return Err(GpuError::Unavailable("the driver sees no device".into()));
        }
        Gpu::open(rank % count as usize)
    }

    /// The values of `tile`'s pairs of layer `shape.layer` of `space` for `f32` lanes, read
    /// from `next` (`None` at the end of the game): what
    /// [`crate::duel::solve::solve_tile`] gives, bit for bit.
    ///
    /// # Errors
    /// A failed call of the driver (out of memory, a lost device).
    pub fn solve_tile(
        &self,
        space: &Space,
        shape: &LayerShape,
        next: Option<&LayerRows<'_, f32>>,
        tile: &Tile,
    ) -> Result<Vec<f32>, GpuError> {
        self.context.bind_to_thread().map_err(driver("binding the context"))?;
        let stream = &self.stream;
        let next_values = upload(stream, next.map_or(&[][..], |n| n.values))?;
        let next_offsets = upload(stream, next.map_or(&[][..], |n| n.tile.offsets()))?;
        let mut values = Vec::with_capacity(tile.positions() as usize);
        let movers = tile.movers.clone();
        for start in movers.clone().step_by(MOVERS_PER_LAUNCH) {
            let batch = Batch::new(space, shape, next, tile, start..(start + MOVERS_PER_LAUNCH).min(movers.end));
            let (plan_counts, plan_entries) =
                (upload(stream, &batch.plan_counts)?, upload(stream, &batch.plan_entries)?);
            let (succ_count, succ_col) = (upload(stream, &batch.succ_count)?, upload(stream, &batch.succ_col)?);
            let succ_bounds = upload(stream, &batch.succ_bounds)?;
            let (opp_row, opp_bounds) = (upload(stream, &batch.opp_row)?, upload(stream, &batch.opp_bounds)?);
            let (jobs, job_out) = (upload(stream, &batch.jobs)?, upload(stream, &batch.job_out)?);
            let mut out: CudaSlice<f32> =
                stream.alloc_zeros(batch.positions.max(1)).map_err(driver("allocating the values"))?;
            if batch.jobs() > 0 {
                let params = Params {
                    next_values: address(stream, &next_values),
                    next_offsets: address(stream, &next_offsets),
                    plan_counts: address(stream, &plan_counts),
                    plan_entries: address(stream, &plan_entries),
                    succ_count: address(stream, &succ_count),
                    succ_col: address(stream, &succ_col),
                    succ_bounds: address(stream, &succ_bounds),
                    opp_row: address(stream, &opp_row),
                    opp_bounds: address(stream, &opp_bounds),
                    jobs: address(stream, &jobs),
                    job_out: address(stream, &job_out),
                    out: out.device_ptr_mut(stream).0,
                    job_count: batch.jobs() as u32,
                    end_of_game: batch.end_of_game as u32,
                };
                let config = LaunchConfig {
                    grid_dim: (batch.jobs() as u32, 1, 1),
                    block_dim: (THREADS, 1, 1),
                    shared_mem_bytes: SHARED_BYTES,
                };
                let mut launch = stream.launch_builder(&self.function);
                launch.arg(&params);
                // SAFETY: `params` holds the addresses of the device buffers above, each of
                // the length the kernel reads (the batch's arrays, the next layer's rows and
                // offsets); they live until the stream is synchronized below.
                unsafe { launch.launch(config) }.map_err(driver("launching the kernel"))?;
            }
            let solved = stream.clone_dtoh(&out).map_err(driver("reading the values back"))?;
            values.extend_from_slice(&solved[..batch.positions]);
        }
        stream.synchronize().map_err(driver("finishing the tile"))?;
        Ok(values)
    }
}

/// Copies `data` to the device (one zero where it is empty: the driver allocates no zero bytes).
fn upload<T: DeviceRepr + Default + Copy>(stream: &Arc<CudaStream>, data: &[T]) -> Result<CudaSlice<T>, GpuError> {
    let one = [T::default()];
    stream.clone_htod(if data.is_empty() { &one[..] } else { data }).map_err(driver("copying to the device"))
}

/// The device address of `slice`, for `Params`.
fn address<T>(stream: &CudaStream, slice: &CudaSlice<T>) -> u64 {
    slice.device_ptr(stream).0
}
