//! A real Vulkan driver as a consumer of shader outputs: Mesa's lavapipe (on the CPU, forced
//! through its ICD file so that a machine with a GPU tests the same), with the Khronos validation
//! layer, through the system loader (`ash` loads `libvulkan.so.1`). [`dispatch`] creates a
//! compute pipeline from a SPIR-V module, runs it over the given buffers and returns their bytes
//! afterwards with every message the driver and the layer sent (lavapipe says why it refuses a
//! module only through a debug-utils messenger). `scripts/setup.sh` installs the driver, the loader
//! and the layer.

use std::ffi::{c_void, CStr};
use std::sync::Mutex;

use ash::vk;

/// Lavapipe's ICD file as Debian's mesa-vulkan-drivers installs it.
pub const LAVAPIPE_ICD: &str = "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json";
const VALIDATION: &CStr = c"VK_LAYER_KHRONOS_validation";

/// A descriptor of set 0: a storage or a uniform buffer with its initial bytes.
pub struct Buffer {
    pub binding: u32,
    pub uniform: bool,
    pub bytes: Vec<u8>,
}

/// What a dispatch left: every buffer's bytes (in the order given) and the messages.
pub struct Run {
    pub buffers: Vec<Vec<u8>>,
    pub messages: Vec<String>,
}

unsafe extern "system" fn collect(
    severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    _kind: vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    user: *mut c_void,
) -> vk::Bool32 {
    // SAFETY: the loader passes valid callback data; `user` is the `Mutex` `Session` owns.
    let (data, sink) = unsafe { (&*data, &*(user as *const Mutex<Vec<String>>)) };
    if !data.p_message.is_null() {
        // SAFETY: a NUL-terminated string for the duration of the call.
        let text = unsafe { CStr::from_ptr(data.p_message) }.to_string_lossy();
        sink.lock().unwrap().push(format!("{severity:?}: {text}"));
    }
    vk::FALSE
}

/// The instance, the device and the messenger, destroyed in order when dropped.
struct Session {
    _entry: ash::Entry,
    instance: ash::Instance,
    utils: ash::ext::debug_utils::Instance,
    messenger: vk::DebugUtilsMessengerEXT,
    device: ash::Device,
    queue: vk::Queue,
    family: u32,
    memory: vk::PhysicalDeviceMemoryProperties,
    messages: Box<Mutex<Vec<String>>>,
}

impl Drop for Session {
    fn drop(&mut self) {
        // SAFETY: every object below was made by this session and is no longer in use.
        unsafe {
            let _ = self.device.device_wait_idle();
            self.device.destroy_device(None);
            self.utils
                .destroy_debug_utils_messenger(self.messenger, None);
            self.instance.destroy_instance(None);
        }
    }
}

fn vk_err(what: &str) -> impl Fn(vk::Result) -> String + '_ {
    move |e| format!("{what}: {e:?}")
}

impl Session {
    fn new() -> Result<Session, String> {
        // SAFETY: loading the system loader; its symbols are used only through `entry`.
        let entry = unsafe { ash::Entry::load() }
            .map_err(|e| format!("no Vulkan loader (libvulkan1): {e}"))?;
        // SAFETY: plain queries.
        let layers =
            unsafe { entry.enumerate_instance_layer_properties() }.map_err(vk_err("layers"))?;
        if !layers
            .iter()
            .any(|l| l.layer_name_as_c_str() == Ok(VALIDATION))
        {
            return Err("no validation layer (vulkan-validationlayers)".into());
        }
        let messages: Box<Mutex<Vec<String>>> = Box::default();
        let app = vk::ApplicationInfo::default()
            .application_name(c"dwarv tests")
            .api_version(vk::API_VERSION_1_3);
        let layer_names = [VALIDATION.as_ptr()];
        let extensions = [ash::ext::debug_utils::NAME.as_ptr()];
        let mut messenger_info = vk::DebugUtilsMessengerCreateInfoEXT::default()
            .message_severity(
                vk::DebugUtilsMessageSeverityFlagsEXT::WARNING
                    | vk::DebugUtilsMessageSeverityFlagsEXT::ERROR,
            )
            .message_type(
                vk::DebugUtilsMessageTypeFlagsEXT::GENERAL
                    | vk::DebugUtilsMessageTypeFlagsEXT::VALIDATION
                    | vk::DebugUtilsMessageTypeFlagsEXT::PERFORMANCE,
            )
            .pfn_user_callback(Some(collect))
            .user_data(&*messages as *const Mutex<Vec<String>> as *mut c_void);
        let info = vk::InstanceCreateInfo::default()
            .application_info(&app)
            .enabled_layer_names(&layer_names)
            .enabled_extension_names(&extensions)
            .push_next(&mut messenger_info);
        // SAFETY: `info` and what it points to live through the call.
        let instance = unsafe { entry.create_instance(&info, None) }.map_err(vk_err("instance"))?;
        let utils = ash::ext::debug_utils::Instance::new(&entry, &instance);
        // SAFETY: as above; the messenger's user data (`messages`) outlives it.
        let messenger = unsafe { utils.create_debug_utils_messenger(&messenger_info, None) }
            .map_err(vk_err("messenger"))?;
        // SAFETY: plain queries on a live instance.
        let physical = unsafe { instance.enumerate_physical_devices() }
            .map_err(vk_err("devices"))?
            .into_iter()
            .next()
            .ok_or("no Vulkan device (mesa-vulkan-drivers' lavapipe)")?;
        let (props, memory, families) = unsafe {
            (
                instance.get_physical_device_properties(physical),
                instance.get_physical_device_memory_properties(physical),
                instance.get_physical_device_queue_family_properties(physical),
            )
        };
        let name = props.device_name_as_c_str().unwrap_or_default();
        if !name.to_string_lossy().starts_with("llvmpipe") {
            return Err(format!("device {name:?} is not lavapipe"));
        }
        let family = families
            .iter()
            .position(|f| f.queue_flags.contains(vk::QueueFlags::COMPUTE))
            .ok_or("no compute queue")? as u32;
        let priorities = [1.0];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(family)
            .queue_priorities(&priorities)];
        let info = vk::DeviceCreateInfo::default().queue_create_infos(&queues);
        // SAFETY: `info` lives through the call.
        let device =
            unsafe { instance.create_device(physical, &info, None) }.map_err(vk_err("device"))?;
        // SAFETY: the family has a queue 0.
        let queue = unsafe { device.get_device_queue(family, 0) };
        Ok(Session {
            _entry: entry,
            instance,
            utils,
            messenger,
            device,
            queue,
            family,
            memory,
            messages,
        })
    }

    fn host_memory(&self, bits: u32) -> Option<u32> {
        let want = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
        (0..self.memory.memory_type_count).find(|&i| {
            bits & (1 << i) != 0
                && self.memory.memory_types[i as usize]
                    .property_flags
                    .contains(want)
        })
    }
}

/// Creates a compute pipeline from `spirv` (entry point `main`) on lavapipe, binds `buffers` in
/// set 0 and `push` as push constants, dispatches `groups` workgroups and returns the buffers'
/// bytes. `Err` when the driver refuses the module (with its messages).
pub fn dispatch(spirv: &[u8], buffers: &[Buffer], push: &[u8], groups: u32) -> Result<Run, String> {
    // Lavapipe whatever else the machine has, set once before any loader reads it: a test
    // thread that comes second waits here until it is set.
    static DRIVER: std::sync::Once = std::sync::Once::new();
    DRIVER.call_once(|| {
        if std::env::var_os("VK_DRIVER_FILES").is_none() {
            // SAFETY: no thread of this binary reads the environment for Vulkan before `DRIVER`
            // is done, and nothing else of it reads this variable.
            unsafe { std::env::set_var("VK_DRIVER_FILES", LAVAPIPE_ICD) };
        }
    });
    let s = Session::new()?;
    let result = run(&s, spirv, buffers, push, groups);
    let messages = std::mem::take(&mut *s.messages.lock().unwrap());
    drop(s);
    match result {
        Ok(buffers) => Ok(Run { buffers, messages }),
        Err(e) => Err(format!("{e}; messages: {messages:#?}")),
    }
}

fn run(
    s: &Session,
    spirv: &[u8],
    buffers: &[Buffer],
    push: &[u8],
    groups: u32,
) -> Result<Vec<Vec<u8>>, String> {
    let d = &s.device;
    let words: Vec<u32> = spirv
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    // Every object is destroyed by the guard below, whatever fails on the way.
    let mut made = Made::new(d);
    // SAFETY (for the block): every create-info and what it points to lives through its call;
    // the objects are destroyed only after the queue is idle.
    unsafe {
        for b in buffers {
            let kind = match b.uniform {
                true => vk::BufferUsageFlags::UNIFORM_BUFFER,
                false => vk::BufferUsageFlags::STORAGE_BUFFER,
            };
            let info = vk::BufferCreateInfo::default()
                .size(b.bytes.len() as u64)
                .usage(kind);
            let buffer = d.create_buffer(&info, None).map_err(vk_err("buffer"))?;
            made.buffers.push(buffer);
            let req = d.get_buffer_memory_requirements(buffer);
            let kind = s
                .host_memory(req.memory_type_bits)
                .ok_or("no host-visible memory")?;
            let info = vk::MemoryAllocateInfo::default()
                .allocation_size(req.size)
                .memory_type_index(kind);
            let memory = d.allocate_memory(&info, None).map_err(vk_err("memory"))?;
            made.memories.push(memory);
            d.bind_buffer_memory(buffer, memory, 0)
                .map_err(vk_err("bind"))?;
            let p = d
                .map_memory(memory, 0, req.size, vk::MemoryMapFlags::empty())
                .map_err(vk_err("map"))?;
            std::ptr::copy_nonoverlapping(b.bytes.as_ptr(), p.cast(), b.bytes.len());
            d.unmap_memory(memory);
        }
        let kind = |b: &Buffer| match b.uniform {
            true => vk::DescriptorType::UNIFORM_BUFFER,
            false => vk::DescriptorType::STORAGE_BUFFER,
        };
        let bindings: Vec<_> = buffers
            .iter()
            .map(|b| {
                vk::DescriptorSetLayoutBinding::default()
                    .binding(b.binding)
                    .descriptor_type(kind(b))
                    .descriptor_count(1)
                    .stage_flags(vk::ShaderStageFlags::COMPUTE)
            })
            .collect();
        let info = vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings);
        made.set_layout = d
            .create_descriptor_set_layout(&info, None)
            .map_err(vk_err("set layout"))?;
        let sizes: Vec<_> = buffers
            .iter()
            .map(|b| {
                vk::DescriptorPoolSize::default()
                    .ty(kind(b))
                    .descriptor_count(1)
            })
            .collect();
        let info = vk::DescriptorPoolCreateInfo::default()
            .max_sets(1)
            .pool_sizes(&sizes);
        made.pool = d
            .create_descriptor_pool(&info, None)
            .map_err(vk_err("pool"))?;
        let layouts = [made.set_layout];
        let info = vk::DescriptorSetAllocateInfo::default()
            .descriptor_pool(made.pool)
            .set_layouts(&layouts);
        let set = d.allocate_descriptor_sets(&info).map_err(vk_err("set"))?[0];
        let infos: Vec<[vk::DescriptorBufferInfo; 1]> = made
            .buffers
            .iter()
            .map(|&buffer| {
                [vk::DescriptorBufferInfo::default()
                    .buffer(buffer)
                    .range(vk::WHOLE_SIZE)]
            })
            .collect();
        let writes: Vec<_> = buffers
            .iter()
            .zip(&infos)
            .map(|(b, info)| {
                vk::WriteDescriptorSet::default()
                    .dst_set(set)
                    .dst_binding(b.binding)
                    .descriptor_type(kind(b))
                    .buffer_info(info)
            })
            .collect();
        d.update_descriptor_sets(&writes, &[]);
        let ranges = [vk::PushConstantRange::default()
            .stage_flags(vk::ShaderStageFlags::COMPUTE)
            .size(push.len() as u32)];
        let info = vk::PipelineLayoutCreateInfo::default()
            .set_layouts(&layouts)
            .push_constant_ranges(if push.is_empty() { &[] } else { &ranges });
        made.pipeline_layout = d
            .create_pipeline_layout(&info, None)
            .map_err(vk_err("pipeline layout"))?;
        let info = vk::ShaderModuleCreateInfo::default().code(&words);
        made.shader = d
            .create_shader_module(&info, None)
            .map_err(vk_err("shader module"))?;
        let stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(made.shader)
            .name(c"main");
        let info = [vk::ComputePipelineCreateInfo::default()
            .stage(stage)
            .layout(made.pipeline_layout)];
        made.pipeline = d
            .create_compute_pipelines(vk::PipelineCache::null(), &info, None)
            .map_err(|(_, e)| format!("the driver refuses the pipeline: {e:?}"))?[0];
        let info = vk::CommandPoolCreateInfo::default().queue_family_index(s.family);
        made.command_pool = d
            .create_command_pool(&info, None)
            .map_err(vk_err("command pool"))?;
        let info = vk::CommandBufferAllocateInfo::default()
            .command_pool(made.command_pool)
            .level(vk::CommandBufferLevel::PRIMARY)
            .command_buffer_count(1);
        let cmd = d
            .allocate_command_buffers(&info)
            .map_err(vk_err("command buffer"))?[0];
        d.begin_command_buffer(cmd, &vk::CommandBufferBeginInfo::default())
            .map_err(vk_err("begin"))?;
        d.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::COMPUTE, made.pipeline);
        d.cmd_bind_descriptor_sets(
            cmd,
            vk::PipelineBindPoint::COMPUTE,
            made.pipeline_layout,
            0,
            &[set],
            &[],
        );
        if !push.is_empty() {
            d.cmd_push_constants(
                cmd,
                made.pipeline_layout,
                vk::ShaderStageFlags::COMPUTE,
                0,
                push,
            );
        }
        d.cmd_dispatch(cmd, groups, 1, 1);
        d.end_command_buffer(cmd).map_err(vk_err("end"))?;
        let cmds = [cmd];
        let submit = [vk::SubmitInfo::default().command_buffers(&cmds)];
        d.queue_submit(s.queue, &submit, vk::Fence::null())
            .map_err(vk_err("submit"))?;
        d.queue_wait_idle(s.queue).map_err(vk_err("wait"))?;
        let mut out = Vec::new();
        for (b, &memory) in buffers.iter().zip(&made.memories) {
            let p = d
                .map_memory(memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
                .map_err(vk_err("map"))?;
            out.push(std::slice::from_raw_parts(p.cast::<u8>(), b.bytes.len()).to_vec());
            d.unmap_memory(memory);
        }
        Ok(out)
    }
}

/// The objects of one dispatch, destroyed when dropped.
struct Made<'d> {
    d: &'d ash::Device,
    buffers: Vec<vk::Buffer>,
    memories: Vec<vk::DeviceMemory>,
    set_layout: vk::DescriptorSetLayout,
    pool: vk::DescriptorPool,
    pipeline_layout: vk::PipelineLayout,
    shader: vk::ShaderModule,
    pipeline: vk::Pipeline,
    command_pool: vk::CommandPool,
}

impl<'d> Made<'d> {
    fn new(d: &'d ash::Device) -> Made<'d> {
        Made {
            d,
            buffers: Vec::new(),
            memories: Vec::new(),
            set_layout: vk::DescriptorSetLayout::null(),
            pool: vk::DescriptorPool::null(),
            pipeline_layout: vk::PipelineLayout::null(),
            shader: vk::ShaderModule::null(),
            pipeline: vk::Pipeline::null(),
            command_pool: vk::CommandPool::null(),
        }
    }
}

impl Drop for Made<'_> {
    fn drop(&mut self) {
        let d = self.d;
        // SAFETY: the queue is idle (or nothing was submitted); null handles are ignored.
        unsafe {
            let _ = d.device_wait_idle();
            d.destroy_command_pool(self.command_pool, None);
            d.destroy_pipeline(self.pipeline, None);
            d.destroy_shader_module(self.shader, None);
            d.destroy_pipeline_layout(self.pipeline_layout, None);
            d.destroy_descriptor_pool(self.pool, None);
            d.destroy_descriptor_set_layout(self.set_layout, None);
            for &b in &self.buffers {
                d.destroy_buffer(b, None);
            }
            for &m in &self.memories {
                d.free_memory(m, None);
            }
        }
    }
}
mod shaders;
