//! The kernel on an NVIDIA GPU through cudarc: the driver (`libcuda.so`) is loaded when a
//! [`Gpu`] is opened, and the kernel comes compiled with the binary (build.rs: a cubin for
//! sm_90, PTX for the others, which the driver compiles on loading).

use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use cudarc::driver::sys::{CUevent_flags, CUfunction_attribute};
use cudarc::driver::{
    CudaContext, CudaEvent, CudaFunction, CudaSlice, CudaStream, DevicePtr, DevicePtrMut, DeviceRepr, LaunchConfig,
    PushKernelArg,
};
use cudarc::nvrtc::Ptx;

use super::batch::{Batch, Params, Phases, SHARED_BYTES, TABLES_FLAT, THREADS, batches};
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
    /// Seconds the kernel ran, summed over launches (as `f64` bits).
    kernel_seconds: AtomicU64,
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
        driver_present()?;
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
        // The cubin where it fits the device, else (or where the driver refuses it) the PTX.
        let from_cubin = (capability == (9, 0)).then(|| context.load_module(Ptx::from_binary(CUBIN_SM90.to_vec())));
        let module = match from_cubin {
            Some(Ok(module)) => module,
            Some(Err(cubin)) => context.load_module(Ptx::from_src(PTX)).map_err(|ptx| GpuError::Driver {
                doing: "loading the kernel",
                error: format!("the sm_90 cubin: {cubin:?}; the PTX: {ptx:?}"),
            })?,
            None => context.load_module(Ptx::from_src(PTX)).map_err(driver("loading the kernel (PTX)"))?,
        };
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
        Ok(Gpu { context, stream, function, kernel_seconds: AtomicU64::new(0), name })
    }

    /// Bytes of device memory free now.
    ///
    /// # Errors
    /// A failed call of the driver.
    pub fn free_bytes(&self) -> Result<usize, GpuError> {
        self.context.mem_get_info().map(|(free, _)| free).map_err(driver("asking for the free memory"))
    }

    /// Seconds the kernel has run on this GPU so far, from launch to its end (uploads,
    /// the host's preparation and the copies back excluded).
    pub fn kernel_seconds(&self) -> f64 {
        f64::from_bits(self.kernel_seconds.load(Ordering::Relaxed))
    }

    /// The GPU of rank `rank` of a node: device `rank` modulo the devices this process
    /// sees (one GPU per rank where there are as many).
    ///
    /// # Errors
    /// As [`Gpu::open`].
    pub fn open_for_rank(rank: usize) -> Result<Gpu, GpuError> {
        driver_present()?;
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
        let rows = self.upload_rows(next)?;
        self.solve_tile_from(space, shape, next, &rows, tile)
    }

    /// Copies the next layer's rows (values and pair offsets) to the device, for
    /// [`Gpu::solve_tile_from`].
    ///
    /// # Errors
    /// A failed call of the driver.
    pub fn upload_rows(&self, next: Option<&LayerRows<'_, f32>>) -> Result<DeviceRows, GpuError> {
        self.context.bind_to_thread().map_err(driver("binding the context"))?;
        let rows = DeviceRows {
            values: upload(&self.stream, next.map_or(&[][..], |n| n.values))?,
            offsets: upload(&self.stream, next.map_or(&[][..], |n| n.tile.offsets()))?,
        };
        // Copied when this returns, so that timing it times the copy.
        self.stream.synchronize().map_err(driver("copying the rows"))?;
        Ok(rows)
    }

    /// [`Gpu::solve_tile`] with the next layer's rows already on the device (`rows`, from
    /// [`Gpu::upload_rows`] of the same `next`), so that several tiles share one copy.
    ///
    /// # Errors
    /// A failed call of the driver.
    pub fn solve_tile_from(
        &self,
        space: &Space,
        shape: &LayerShape,
        next: Option<&LayerRows<'_, f32>>,
        rows: &DeviceRows,
        tile: &Tile,
    ) -> Result<Vec<f32>, GpuError> {
        self.run_phases(space, shape, next, rows, tile, Phases::TURN)
    }

    /// [`Gpu::solve_tile_from`] running only `phases` of each turn, to time them: the values
    /// are the tile's only with [`Phases::TURN`] (without [`Phases::START`] none is written).
    ///
    /// # Errors
    /// A failed call of the driver.
    pub fn run_phases(
        &self,
        space: &Space,
        shape: &LayerShape,
        next: Option<&LayerRows<'_, f32>>,
        rows: &DeviceRows,
        tile: &Tile,
        phases: Phases,
    ) -> Result<Vec<f32>, GpuError> {
        self.context.bind_to_thread().map_err(driver("binding the context"))?;
        let mut values = vec![0.0f32; tile.positions() as usize];
        // One launch runs while the host prepares the next batch's inputs.
        let mut in_flight: Option<Launch> = None;
        for (these, into) in batches(tile, MOVERS_PER_LAUNCH) {
            let batch = Batch::new(space, shape, next, tile, these);
            if let Some(launch) = in_flight.take() {
                self.finish(launch, &mut values)?;
            }
            in_flight = Some(self.launch(&batch, rows, phases, into)?);
        }
        if let Some(launch) = in_flight {
            self.finish(launch, &mut values)?;
        }
        self.stream.synchronize().map_err(driver("finishing the tile"))?;
        Ok(values)
    }

    /// Copies `batch`'s inputs to the device and starts the kernel on them, without
    /// waiting for it (the host's copy of the inputs may go once this returns).
    fn launch(&self, batch: &Batch, rows: &DeviceRows, phases: Phases, into: Range<usize>) -> Result<Launch, GpuError> {
        let stream = &self.stream;
        let inputs = LaunchInputs {
            plan_counts: upload(stream, &batch.plan_counts)?,
            plan_entries: upload(stream, &batch.plan_entries)?,
            succ_count: upload(stream, &batch.succ_count)?,
            succ_col: upload(stream, &batch.succ_col)?,
            succ_bounds: upload(stream, &batch.succ_bounds)?,
            opp_row: upload(stream, &batch.opp_row)?,
            opp_bounds: upload(stream, &batch.opp_bounds)?,
            jobs: upload(stream, &batch.jobs)?,
            job_out: upload(stream, &batch.job_out)?,
        };
        let mut out: CudaSlice<f32> =
            stream.alloc_zeros(batch.positions.max(1)).map_err(driver("allocating the values"))?;
        let mut timing = None;
        if batch.jobs() > 0 {
            let i = &inputs;
            let params = Params {
                next_values: address(stream, &rows.values),
                next_offsets: address(stream, &rows.offsets),
                plan_counts: address(stream, &i.plan_counts),
                plan_entries: address(stream, &i.plan_entries),
                succ_count: address(stream, &i.succ_count),
                succ_col: address(stream, &i.succ_col),
                succ_bounds: address(stream, &i.succ_bounds),
                opp_row: address(stream, &i.opp_row),
                opp_bounds: address(stream, &i.opp_bounds),
                jobs: address(stream, &i.jobs),
                job_out: address(stream, &i.job_out),
                out: out.device_ptr_mut(stream).0,
                job_count: batch.jobs() as u32,
                end_of_game: batch.end_of_game as u32,
                phases: phases.0,
            };
            let config = LaunchConfig {
                grid_dim: (batch.jobs() as u32, 1, 1),
                block_dim: (THREADS, 1, 1),
                shared_mem_bytes: SHARED_BYTES,
            };
            let timed = Some(CUevent_flags::CU_EVENT_DEFAULT);
            let started = stream.record_event(timed).map_err(driver("timing the kernel"))?;
            let mut launch = stream.launch_builder(&self.function);
            launch.arg(&params);
            // SAFETY: `params` holds the addresses of device buffers each of the length the
            // kernel reads (the batch's inputs, the next layer's rows and offsets, `out`);
            // the inputs and `out` live in the returned `Launch` until `finish` has waited
            // for the kernel, and the rows outlive the tile's solve, which finishes every
            // launch before it returns.
            unsafe { launch.launch(config) }.map_err(driver("launching the kernel"))?;
            let ended = stream.record_event(timed).map_err(driver("timing the kernel"))?;
            timing = Some((started, ended));
        }
        Ok(Launch { _inputs: inputs, out, positions: batch.positions, into, timing })
    }

    /// Waits for `launch`'s kernel and copies its values into their place in `values`.
    fn finish(&self, launch: Launch, values: &mut [f32]) -> Result<(), GpuError> {
        if launch.positions > 0 {
            let mine = &mut values[launch.into.clone()];
            let out = launch.out.slice(..launch.positions);
            self.stream.memcpy_dtoh(&out, mine).map_err(driver("reading the values back"))?;
        }
        if let Some((started, ended)) = &launch.timing {
            let seconds = f64::from(started.elapsed_ms(ended).map_err(driver("running the kernel"))?) / 1e3;
            let _ = self
                .kernel_seconds
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |s| Some((f64::from_bits(s) + seconds).to_bits()));
        }
        Ok(())
    }
}

/// A batch's inputs on the device, held until its kernel has run.
struct LaunchInputs {
    plan_counts: CudaSlice<u8>,
    plan_entries: CudaSlice<u32>,
    succ_count: CudaSlice<u32>,
    succ_col: CudaSlice<u32>,
    succ_bounds: CudaSlice<i32>,
    opp_row: CudaSlice<u64>,
    opp_bounds: CudaSlice<i32>,
    jobs: CudaSlice<i32>,
    job_out: CudaSlice<u64>,
}

/// A launched batch: its inputs and output on the device, where its values go, and the
/// events around its kernel (none where it had no job).
struct Launch {
    _inputs: LaunchInputs,
    out: CudaSlice<f32>,
    positions: usize,
    into: Range<usize>,
    timing: Option<(CudaEvent, CudaEvent)>,
}

/// The next layer's rows on the device: what a tile's pairs read.
pub struct DeviceRows {
    values: CudaSlice<f32>,
    offsets: CudaSlice<u64>,
}

/// Whether the driver's library can be loaded, asked before cudarc (which panics where it
/// cannot).
fn driver_present() -> Result<(), GpuError> {
    let mut why = String::new();
    for name in ["libcuda.so.1", "libcuda.so"] {
        // SAFETY: loading the driver runs its initialisers, which have no preconditions;
        // cudarc loads the same library next.
        match unsafe { libloading::Library::new(name) } {
            Ok(_) => return Ok(()),
            Err(e) => why = e.to_string(),
        }
    }
    Err(GpuError::Unavailable(format!(
        "the CUDA driver (libcuda.so.1) could not be loaded ({why}); is this a machine with an NVIDIA GPU and its driver?"
    )))
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

/// Device tests, ignored without a GPU: `scripts/gpu-check` runs them on one.
#[cfg(test)]
mod tests {

    use super::*;
    use crate::duel::Cards;
    use crate::duel::solve::{LayerValues, solve_tile};
    use crate::game::{Game, Rules};
    use std::time::Instant;

    fn gpu() -> Gpu {
        Gpu::open(0).unwrap_or_else(|e| panic!("{e}"))
    }

    /// The layers of `space` from `lowest` on, solved whole on the GPU, by layer.
    fn on_gpu(gpu: &Gpu, space: &Space, lowest: usize) -> Vec<Option<LayerValues<f32>>> {
        let mut layers: Vec<Option<LayerValues<f32>>> = vec![None; space.end_layer() + 1];
        for layer in (lowest..space.end_layer()).rev() {
            let shape = LayerShape::new(space, layer);
            let tile = Tile::new(space, &shape, 0..shape.movers.len(), 0..shape.opponents.len());
            let next = layers[layer + 1].as_ref().map(LayerValues::rows);
            let values = gpu.solve_tile(space, &shape, next.as_ref(), &tile).unwrap();
            layers[layer] = Some(LayerValues { shape: Arc::new(shape), tile, values });
        }
        layers
    }

    /// The layers of `space` from `lowest` on, solved on the CPU, by layer.
    fn on_cpu(space: &Space, lowest: usize) -> Vec<Option<LayerValues<f32>>> {
        let mut layers: Vec<Option<LayerValues<f32>>> = vec![None; space.end_layer() + 1];
        crate::duel::sweep::solve_layers::<f32>(space, lowest, |layer| {
            layers[layer.shape.layer] = Some(layer.clone());
            Ok(())
        })
        .unwrap();
        layers
    }

    fn same(a: &[f32], b: &[f32]) -> usize {
        assert_eq!(a.len(), b.len());
        a.iter().zip(b).filter(|(x, y)| x.to_bits() != y.to_bits()).count()
    }

    /// A rectangle of `shape` of about `positions` positions: movers from the middle
    /// against every opponent.
    fn sample(space: &Space, shape: &LayerShape, positions: u64) -> Tile {
        let nm = shape.movers.len();
        let per_mover = shape.positions().div_ceil(nm as u64).max(1);
        let take = ((positions / per_mover) as usize).clamp(1, nm);
        Tile::new(space, shape, (nm - take) / 2..(nm - take) / 2 + take, 0..shape.opponents.len())
    }

    #[test]
    #[ignore = "needs an NVIDIA GPU: scripts/gpu-check"]
    fn the_gpu_equals_the_cpu_on_real_pairs() {
        let gpu = gpu();
        // The first six boxes: every layer whole.
        let cards = Cards::new(Game { rules: Rules::OFFICIAL, categories: Rules::OFFICIAL.first(6).unwrap() });
        let space = Space::whole_game(&cards);
        let (device, cpu) = (on_gpu(&gpu, &space, 0), on_cpu(&space, 0));
        for layer in 0..space.end_layer() {
            let (d, c) = (device[layer].as_ref().unwrap(), cpu[layer].as_ref().unwrap());
            assert_eq!(same(&d.values, &c.values), 0, "--first 6, layer {layer}");
        }
        println!("GPU_CHECK first6_layers_identical={}", space.end_layer());
        // Four open boxes: the top layers whole, the first one on a sample of real pairs.
        let cards = Cards::new(Game::full(Rules::OFFICIAL));
        let space = Space::endgame(&cards, 4);
        let first = space.first_layer();
        let (device, cpu) = (on_gpu(&gpu, &space, first), on_cpu(&space, first + 1));
        for layer in first + 1..space.end_layer() {
            let (d, c) = (device[layer].as_ref().unwrap(), cpu[layer].as_ref().unwrap());
            assert_eq!(same(&d.values, &c.values), 0, "--max-empty 4, layer {layer}");
        }
        let shape = LayerShape::new(&space, first);
        let tile = sample(&space, &shape, 20_000_000);
        let next = cpu[first + 1].as_ref().map(LayerValues::rows);
        let expected = solve_tile(&space, &shape, next.as_ref(), &tile);
        let whole = device[first].as_ref().unwrap();
        let got = &whole.values[whole.tile.rows(tile.movers.clone())];
        assert_eq!(same(got, &expected), 0, "--max-empty 4, layer {first}");
        println!("GPU_CHECK max_empty4_sample_identical={}", expected.len());
    }

    /// Lane-turns (positions) per second on real pairs of the first layer of
    /// `--max-empty 5`, reading the real layer after it: the GPU, one CPU core and every
    /// core, each on a sample of about a second's work; the CPU's values against the GPU's.
    #[test]
    #[ignore = "needs an NVIDIA GPU: scripts/gpu-check"]
    fn rate_on_max_empty_5() {
        let gpu = gpu();
        let cards = Cards::new(Game::full(Rules::OFFICIAL));
        let space = Space::endgame(&cards, 5);
        let first = space.first_layer();
        let started = Instant::now();
        let layers = on_gpu(&gpu, &space, first + 1);
        println!("GPU_CHECK rate_setup_seconds={:.2}", started.elapsed().as_secs_f64());
        let shape = LayerShape::new(&space, first);
        let next = layers[first + 1].as_ref().map(LayerValues::rows);
        let rows = gpu.upload_rows(next.as_ref()).unwrap();
        let sized = |name: &str, default: u64| std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default);
        let timed = |f: &dyn Fn() -> Vec<f32>| {
            let started = Instant::now();
            let values = f();
            (values, started.elapsed().as_secs_f64())
        };
        // The GPU: once to warm up (the driver's first launch), then timed.
        let tile = sample(&space, &shape, sized("YZ_GPU_SAMPLE", 300_000_000));
        let _ = gpu.solve_tile_from(&space, &shape, next.as_ref(), &rows, &sample(&space, &shape, 1_000_000)).unwrap();
        let kernel_before = gpu.kernel_seconds();
        let (_, seconds) = timed(&|| gpu.solve_tile_from(&space, &shape, next.as_ref(), &rows, &tile).unwrap());
        let kernel = gpu.kernel_seconds() - kernel_before;
        let (gpu_rate, kernel_rate) = (tile.positions() as f64 / seconds, tile.positions() as f64 / kernel);
        println!(
            "GPU_CHECK gpu_positions={} gpu_seconds={seconds:.3} gpu_rate={gpu_rate:.0} gpu_kernel_seconds={kernel:.3} \
             gpu_kernel_rate={kernel_rate:.0}",
            tile.positions()
        );
        // One core, then every core, each checked against the GPU on its own sample.
        for (name, threads, positions) in [
            ("cpu1", 1, sized("YZ_CPU1_SAMPLE", 3_000_000)),
            ("cpuall", rayon::current_num_threads(), sized("YZ_CPUALL_SAMPLE", 30_000_000)),
        ] {
            let tile = sample(&space, &shape, positions);
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            let (cpu, seconds) = timed(&|| pool.install(|| solve_tile(&space, &shape, next.as_ref(), &tile)));
            let device = gpu.solve_tile_from(&space, &shape, next.as_ref(), &rows, &tile).unwrap();
            let differ = same(&cpu, &device);
            let rate = tile.positions() as f64 / seconds;
            println!(
                "GPU_CHECK {name}_threads={threads} {name}_positions={} {name}_seconds={seconds:.3} {name}_rate={rate:.0} \
                 {name}_differing={differ}",
                tile.positions()
            );
            assert_eq!(differ, 0, "{name}: the GPU's values differ from the CPU's");
        }
    }
}
