//! The WebGL2 side of the graph picture: four small shader programs (nodes as round points,
//! community discs, hairline edges, wide lines), their buffers, and one draw call per layer.

use wasm_bindgen::JsCast;
use web_sys::{
    HtmlCanvasElement, WebGl2RenderingContext as Gl2, WebGlBuffer, WebGlContextAttributes,
    WebGlProgram, WebGlShader, WebGlVertexArrayObject,
};

use super::camera::{Camera, Viewport};
use super::palette::Rgba;
use super::scene::{EDGE_FLOATS, EdgeRanges, NODE_FLOATS, WIDE_FLOATS};
use super::theme::Theme;

/// Floats per mark (a node drawn on top: selection, neighbours, agent lights, hover):
/// x, y, radius, fill rgba, ring rgba, ring width px, halo (0/1).
pub const MARK_FLOATS: usize = 13;
/// Floats per disc vertex: centre x, y, radius, corner x, y, colour rgb.
pub const DISC_FLOATS: usize = 8;
/// Smallest drawn node radius in CSS pixels.
const MIN_NODE_PX: f32 = 1.3;

const NODE_VS: &str = r#"#version 300 es
precision highp float;
layout(location=0) in vec2 a_pos;
layout(location=1) in float a_radius;
layout(location=2) in float a_reveal;
layout(location=3) in vec4 a_fill;
layout(location=4) in vec4 a_ring;
layout(location=5) in float a_ring_px;
layout(location=6) in float a_halo;
uniform vec2 u_center;
uniform vec2 u_scale;
uniform float u_zoom;
uniform float u_dpr;
uniform float u_min_px;
uniform float u_max_px;
uniform float u_alpha;
out vec4 v_fill;
out vec4 v_ring;
out float v_r;
out float v_ring_px;
out float v_halo;
out float v_size;
void main() {
  float a = a_reveal <= 0.0 ? 1.0 : clamp((u_zoom - 0.7 * a_reveal) / (0.3 * a_reveal), 0.0, 1.0);
  v_fill = vec4(0.0); v_ring = vec4(0.0); v_r = 0.0; v_ring_px = 0.0; v_halo = 0.0; v_size = 1.0;
  if (a <= 0.0) { gl_Position = vec4(2.0, 2.0, 0.0, 1.0); gl_PointSize = 0.0; return; }
  float r = clamp(a_radius * u_zoom, u_min_px, u_max_px) * mix(0.5, 1.0, a);
  float ring = a_ring_px > 0.0 ? a_ring_px + 1.5 : 0.0;
  float halo = a_halo > 0.0 ? max(7.0, r * 0.9) : 0.0;
  v_size = r + ring + halo + 1.0;
  gl_PointSize = 2.0 * v_size * u_dpr;
  gl_Position = vec4((a_pos - u_center) * u_scale, 0.0, 1.0);
  v_fill = vec4(a_fill.rgb, a_fill.a * a * u_alpha);
  v_ring = a_ring; v_r = r; v_ring_px = a_ring_px; v_halo = halo;
}
"#;

const NODE_FS: &str = r#"#version 300 es
precision highp float;
in vec4 v_fill;
in vec4 v_ring;
in float v_r;
in float v_ring_px;
in float v_halo;
in float v_size;
out vec4 o;
void main() {
  float d = length(gl_PointCoord - 0.5) * 2.0 * v_size;
  float fill = 1.0 - smoothstep(v_r - 0.7, v_r + 0.7, d);
  vec4 c = vec4(v_fill.rgb, 1.0) * v_fill.a * fill;
  if (v_ring_px > 0.0) {
    float inner = v_r + 1.5;
    float outer = inner + v_ring_px;
    float ring = smoothstep(inner - 0.7, inner + 0.7, d) * (1.0 - smoothstep(outer - 0.7, outer + 0.7, d));
    float ra = v_ring.a * ring;
    c = vec4(v_ring.rgb, 1.0) * ra + c * (1.0 - ra);
    if (v_halo > 0.0) {
      float glow = (1.0 - smoothstep(outer, outer + v_halo, d)) * step(outer, d) * 0.35 * v_ring.a;
      c = c + vec4(v_ring.rgb, 1.0) * glow * (1.0 - c.a);
    }
  }
  if (c.a < 0.003) discard;
  o = c;
}
"#;

const DISC_VS: &str = r#"#version 300 es
precision highp float;
layout(location=0) in vec2 a_center;
layout(location=1) in float a_radius;
layout(location=2) in vec2 a_corner;
layout(location=3) in vec3 a_color;
uniform vec2 u_center;
uniform vec2 u_scale;
uniform float u_zoom;
out vec2 v_uv;
out float v_rpx;
out vec3 v_color;
void main() {
  vec2 world = a_center + a_corner * a_radius * 1.04;
  gl_Position = vec4((world - u_center) * u_scale, 0.0, 1.0);
  v_uv = a_corner * 1.04;
  v_rpx = a_radius * u_zoom;
  v_color = a_color;
}
"#;

const DISC_FS: &str = r#"#version 300 es
precision highp float;
in vec2 v_uv;
in float v_rpx;
in vec3 v_color;
uniform float u_fill;
uniform float u_line;
out vec4 o;
void main() {
  float d = length(v_uv) * v_rpx;
  float inside = 1.0 - smoothstep(v_rpx - 0.8, v_rpx + 0.8, d);
  float line = inside * smoothstep(v_rpx - 2.2, v_rpx - 0.8, d);
  float a = u_fill * inside + u_line * line;
  if (a < 0.003) discard;
  o = vec4(v_color, 1.0) * a;
}
"#;

const EDGE_VS: &str = r#"#version 300 es
precision highp float;
layout(location=0) in vec2 a_pos;
layout(location=1) in vec2 a_from;
layout(location=2) in float a_reveal;
layout(location=3) in float a_kind;
uniform vec2 u_center;
uniform vec2 u_scale;
uniform float u_zoom;
uniform float u_alpha;
uniform float u_skip;
uniform vec4 u_skip_rect;
uniform vec4 u_call;
uniform vec4 u_import;
uniform vec4 u_heritage;
out vec4 v_color;
void main() {
  float a = clamp((u_zoom - 0.7 * a_reveal) / (0.3 * a_reveal), 0.0, 1.0) * u_alpha;
  bool skip = u_skip > 0.5 && a_from.x >= u_skip_rect.x && a_from.x < u_skip_rect.z
    && a_from.y >= u_skip_rect.y && a_from.y < u_skip_rect.w;
  v_color = vec4(0.0);
  if (a <= 0.0 || skip) { gl_Position = vec4(2.0, 2.0, 0.0, 1.0); return; }
  gl_Position = vec4((a_pos - u_center) * u_scale, 0.0, 1.0);
  vec4 c = a_kind < 0.5 ? u_call : (a_kind < 1.5 ? u_import : u_heritage);
  v_color = vec4(c.rgb, 1.0) * c.a * a;
}
"#;

const EDGE_FS: &str = r#"#version 300 es
precision highp float;
in vec4 v_color;
out vec4 o;
void main() { o = v_color; }
"#;

const WIDE_VS: &str = r#"#version 300 es
precision highp float;
layout(location=0) in vec2 a_a;
layout(location=1) in vec2 a_b;
layout(location=2) in float a_along;
layout(location=3) in float a_side;
layout(location=4) in float a_width;
layout(location=5) in float a_alpha;
layout(location=6) in float a_tone;
uniform vec2 u_center;
uniform vec2 u_scale;
uniform vec2 u_viewport;
uniform float u_alpha;
uniform vec4 u_tone0;
uniform vec4 u_tone1;
out vec4 v_color;
out float v_side;
out float v_half;
void main() {
  vec2 half_vp = u_viewport * 0.5;
  vec2 pa = (a_a - u_center) * u_scale * half_vp;
  vec2 pb = (a_b - u_center) * u_scale * half_vp;
  vec2 d = pb - pa;
  float len = length(d);
  vec2 dir = len > 1e-4 ? d / len : vec2(1.0, 0.0);
  vec2 n = vec2(-dir.y, dir.x);
  v_half = a_width * 0.5;
  v_side = a_side * (v_half + 1.0);
  vec2 p = mix(pa, pb, a_along) + n * v_side;
  gl_Position = vec4(p / half_vp, 0.0, 1.0);
  vec4 c = a_tone < 0.5 ? u_tone0 : u_tone1;
  v_color = vec4(c.rgb, 1.0) * c.a * a_alpha * u_alpha;
}
"#;

const WIDE_FS: &str = r#"#version 300 es
precision highp float;
in vec4 v_color;
in float v_side;
in float v_half;
out vec4 o;
void main() {
  float a = 1.0 - smoothstep(v_half - 0.5, v_half + 0.5, abs(v_side));
  o = v_color * a;
}
"#;

/// One layer: its program, vertex array and buffer.
struct Layer {
    program: WebGlProgram,
    vao: WebGlVertexArrayObject,
    buffer: WebGlBuffer,
    /// Vertices in the buffer.
    count: i32,
}

/// Everything one frame needs besides the buffers.
/// Nodes stop growing at this radius (CSS pixels) when zooming in: the layout spreads them
/// anyway, and huge sprites only cost fill rate (software GL rasterises every pixel).
const MAX_NODE_PX: f32 = 36.0;

pub struct Frame<'a> {
    pub camera: Camera,
    pub viewport: Viewport,
    pub dpr: f32,
    pub theme: &'a Theme,
    /// Opacity of nodes and edges outside the selection (1 without a selection).
    pub rest_alpha: f32,
    pub group_edge_alpha: f32,
    /// Node edges near the view, or `None` when too many are in view.
    pub edges: Option<&'a EdgeRanges>,
    /// Node vertex ranges (first, count) drawn: those shown at this zoom near the view.
    pub nodes_shown: &'a [(i32, i32)],
}

pub struct Renderer {
    gl: Gl2,
    nodes: Layer,
    /// Node colours (four bytes each), a second buffer of the nodes' vertex array.
    colors: WebGlBuffer,
    discs: Layer,
    edges: Layer,
    group_edges: Layer,
    selection_edges: Layer,
    marks: Layer,
    max_point_px: f32,
}

fn compile(gl: &Gl2, kind: u32, source: &str) -> Result<WebGlShader, String> {
    let shader = gl.create_shader(kind).ok_or("could not create a shader")?;
    gl.shader_source(&shader, source);
    gl.compile_shader(&shader);
    if gl
        .get_shader_parameter(&shader, Gl2::COMPILE_STATUS)
        .as_bool()
        .unwrap_or(false)
    {
        Ok(shader)
    } else {
        Err(gl.get_shader_info_log(&shader).unwrap_or_default())
    }
}

fn program(gl: &Gl2, vs: &str, fs: &str) -> Result<WebGlProgram, String> {
    let program = gl.create_program().ok_or("could not create a program")?;
    gl.attach_shader(&program, &compile(gl, Gl2::VERTEX_SHADER, vs)?);
    gl.attach_shader(&program, &compile(gl, Gl2::FRAGMENT_SHADER, fs)?);
    gl.link_program(&program);
    if gl
        .get_program_parameter(&program, Gl2::LINK_STATUS)
        .as_bool()
        .unwrap_or(false)
    {
        Ok(program)
    } else {
        Err(gl.get_program_info_log(&program).unwrap_or_default())
    }
}

/// A layer whose buffer holds `floats` floats per vertex, split into attributes of the given
/// sizes at locations 0, 1, 2, …
fn layer(gl: &Gl2, vs: &str, fs: &str, sizes: &[i32]) -> Result<Layer, String> {
    let program = program(gl, vs, fs)?;
    let vao = gl
        .create_vertex_array()
        .ok_or("could not create a vertex array")?;
    let buffer = gl.create_buffer().ok_or("could not create a buffer")?;
    gl.bind_vertex_array(Some(&vao));
    gl.bind_buffer(Gl2::ARRAY_BUFFER, Some(&buffer));
    let stride = sizes.iter().sum::<i32>() * 4;
    let mut offset = 0;
    for (location, size) in sizes.iter().enumerate() {
        gl.enable_vertex_attrib_array(location as u32);
        gl.vertex_attrib_pointer_with_i32(
            location as u32,
            *size,
            Gl2::FLOAT,
            false,
            stride,
            offset,
        );
        offset += size * 4;
    }
    gl.bind_vertex_array(None);
    Ok(Layer {
        program,
        vao,
        buffer,
        count: 0,
    })
}

impl Renderer {
    /// A WebGL2 context on `canvas` and the programs; the error says why when either fails.
    pub fn new(canvas: &HtmlCanvasElement) -> Result<Renderer, String> {
        let attributes = WebGlContextAttributes::new();
        attributes.set_alpha(false);
        attributes.set_antialias(false);
        attributes.set_depth(false);
        attributes.set_stencil(false);
        attributes.set_premultiplied_alpha(true);
        let gl: Gl2 = canvas
            .get_context_with_context_options("webgl2", &attributes)
            .map_err(|e| format!("WebGL2 failed: {e:?}"))?
            .ok_or("this browser has no WebGL2")?
            .dyn_into()
            .map_err(|_| "the canvas gave no WebGL2 context")?;
        let nodes = layer(&gl, NODE_VS, NODE_FS, &[2, 1, 1])?;
        let colors = gl.create_buffer().ok_or("could not create a buffer")?;
        gl.bind_vertex_array(Some(&nodes.vao));
        gl.bind_buffer(Gl2::ARRAY_BUFFER, Some(&colors));
        gl.enable_vertex_attrib_array(3);
        gl.vertex_attrib_pointer_with_i32(3, 4, Gl2::UNSIGNED_BYTE, true, 4, 0);
        gl.bind_vertex_array(None);
        let marks = layer(&gl, NODE_VS, NODE_FS, &[2, 1, 1, 4, 4, 1, 1])?;
        let discs = layer(&gl, DISC_VS, DISC_FS, &[2, 1, 2, 3])?;
        let edges = layer(&gl, EDGE_VS, EDGE_FS, &[2, 2, 1, 1])?;
        let group_edges = layer(&gl, WIDE_VS, WIDE_FS, &[2, 2, 1, 1, 1, 1, 1])?;
        let selection_edges = layer(&gl, WIDE_VS, WIDE_FS, &[2, 2, 1, 1, 1, 1, 1])?;
        let range = gl
            .get_parameter(Gl2::ALIASED_POINT_SIZE_RANGE)
            .ok()
            .and_then(|v| v.dyn_into::<js_sys::Float32Array>().ok())
            .map(|a| a.get_index(1))
            .unwrap_or(64.0);
        Ok(Renderer {
            gl,
            nodes,
            colors,
            discs,
            edges,
            group_edges,
            selection_edges,
            marks,
            max_point_px: range,
        })
    }

    pub fn is_lost(&self) -> bool {
        self.gl.is_context_lost()
    }

    fn upload(gl: &Gl2, buffer: &WebGlBuffer, data: &[f32], usage: u32) {
        gl.bind_buffer(Gl2::ARRAY_BUFFER, Some(buffer));
        let array = js_sys::Float32Array::from(data);
        gl.buffer_data_with_array_buffer_view(Gl2::ARRAY_BUFFER, &array, usage);
    }

    /// Node, edge and community-edge vertices of a new view.
    pub fn set_static(&mut self, nodes: &[f32], edges: &[f32], group_edges: &[f32]) {
        Self::upload(&self.gl, &self.nodes.buffer, nodes, Gl2::STATIC_DRAW);
        self.nodes.count = (nodes.len() / NODE_FLOATS) as i32;
        Self::upload(&self.gl, &self.edges.buffer, edges, Gl2::STATIC_DRAW);
        self.edges.count = (edges.len() / EDGE_FLOATS) as i32;
        Self::upload(
            &self.gl,
            &self.group_edges.buffer,
            group_edges,
            Gl2::STATIC_DRAW,
        );
        self.group_edges.count = (group_edges.len() / WIDE_FLOATS) as i32;
    }

    /// Node colours (four bytes per node) and community disc vertices.
    pub fn set_colors(&mut self, colors: &[u8], discs: &[f32]) {
        self.gl.bind_buffer(Gl2::ARRAY_BUFFER, Some(&self.colors));
        self.gl
            .buffer_data_with_u8_array(Gl2::ARRAY_BUFFER, colors, Gl2::STATIC_DRAW);
        Self::upload(&self.gl, &self.discs.buffer, discs, Gl2::STATIC_DRAW);
        self.discs.count = (discs.len() / DISC_FLOATS) as i32;
    }

    pub fn set_selection_edges(&mut self, vertices: &[f32]) {
        Self::upload(
            &self.gl,
            &self.selection_edges.buffer,
            vertices,
            Gl2::DYNAMIC_DRAW,
        );
        self.selection_edges.count = (vertices.len() / WIDE_FLOATS) as i32;
    }

    pub fn set_marks(&mut self, vertices: &[f32]) {
        Self::upload(&self.gl, &self.marks.buffer, vertices, Gl2::DYNAMIC_DRAW);
        self.marks.count = (vertices.len() / MARK_FLOATS) as i32;
    }

    /// Sizes the drawing buffer to the canvas's CSS size times the device pixel ratio.
    pub fn resize(&self, width: u32, height: u32) {
        self.gl.viewport(0, 0, width as i32, height as i32);
    }

    fn use_layer(&self, layer: &Layer, frame: &Frame) {
        let gl = &self.gl;
        gl.use_program(Some(&layer.program));
        gl.bind_vertex_array(Some(&layer.vao));
        let [sx, sy] = frame.camera.clip_scale(frame.viewport);
        let loc = |name: &str| gl.get_uniform_location(&layer.program, name);
        gl.uniform2f(loc("u_center").as_ref(), frame.camera.x, frame.camera.y);
        gl.uniform2f(loc("u_scale").as_ref(), sx, sy);
        gl.uniform1f(loc("u_zoom").as_ref(), frame.camera.zoom);
        gl.uniform1f(loc("u_dpr").as_ref(), frame.dpr);
        gl.uniform2f(
            loc("u_viewport").as_ref(),
            frame.viewport.width,
            frame.viewport.height,
        );
    }

    fn set_color(&self, layer: &Layer, name: &str, c: Rgba) {
        let loc = self.gl.get_uniform_location(&layer.program, name);
        self.gl.uniform4f(loc.as_ref(), c[0], c[1], c[2], c[3]);
    }

    fn set_float(&self, layer: &Layer, name: &str, v: f32) {
        let loc = self.gl.get_uniform_location(&layer.program, name);
        self.gl.uniform1f(loc.as_ref(), v);
    }

    pub fn draw(&self, frame: &Frame) {
        let gl = &self.gl;
        let bg = frame.theme.background;
        gl.clear_color(bg[0], bg[1], bg[2], 1.0);
        gl.clear(Gl2::COLOR_BUFFER_BIT);
        gl.enable(Gl2::BLEND);
        gl.blend_func(Gl2::ONE, Gl2::ONE_MINUS_SRC_ALPHA);
        let theme = frame.theme;

        if self.discs.count > 0 {
            self.use_layer(&self.discs, frame);
            self.set_float(&self.discs, "u_fill", theme.disc_fill);
            self.set_float(&self.discs, "u_line", theme.disc_line);
            gl.draw_arrays(Gl2::TRIANGLES, 0, self.discs.count);
        }
        if self.group_edges.count > 0 && frame.group_edge_alpha > 0.0 {
            self.use_layer(&self.group_edges, frame);
            self.set_float(
                &self.group_edges,
                "u_alpha",
                frame.group_edge_alpha * frame.rest_alpha,
            );
            self.set_color(&self.group_edges, "u_tone0", theme.group_edge);
            self.set_color(&self.group_edges, "u_tone1", theme.group_edge);
            gl.draw_arrays(Gl2::TRIANGLES, 0, self.group_edges.count);
        }
        if let Some(near) = frame.edges.filter(|n| !n.ranges.is_empty()) {
            self.use_layer(&self.edges, frame);
            self.set_float(&self.edges, "u_alpha", frame.rest_alpha);
            self.set_color(&self.edges, "u_call", theme.edge_call);
            self.set_color(&self.edges, "u_import", theme.edge_import);
            self.set_color(&self.edges, "u_heritage", theme.edge_heritage);
            let [x0, y0, x1, y1] = near.cells_rect;
            let rect = gl.get_uniform_location(&self.edges.program, "u_skip_rect");
            gl.uniform4f(rect.as_ref(), x0, y0, x1, y1);
            let half = self.edges.count / 2;
            for &(first, count) in &near.ranges {
                self.set_float(&self.edges, "u_skip", if first >= half { 1.0 } else { 0.0 });
                gl.draw_arrays(Gl2::LINES, first, count);
            }
        }
        if self.selection_edges.count > 0 {
            self.use_layer(&self.selection_edges, frame);
            self.set_float(&self.selection_edges, "u_alpha", 1.0);
            self.set_color(&self.selection_edges, "u_tone0", theme.callee);
            self.set_color(&self.selection_edges, "u_tone1", theme.caller);
            gl.draw_arrays(Gl2::TRIANGLES, 0, self.selection_edges.count);
        }
        for (layer, alpha) in [(&self.nodes, frame.rest_alpha), (&self.marks, 1.0)] {
            if layer.count == 0 {
                continue;
            }
            self.use_layer(layer, frame);
            self.set_float(layer, "u_min_px", MIN_NODE_PX);
            self.set_float(
                layer,
                "u_max_px",
                (self.max_point_px / frame.dpr * 0.5 - 24.0).clamp(8.0, MAX_NODE_PX),
            );
            self.set_float(layer, "u_alpha", alpha);
            if std::ptr::eq(layer, &self.nodes) {
                gl.vertex_attrib4f(4, 0.0, 0.0, 0.0, 0.0);
                gl.vertex_attrib1f(5, 0.0);
                gl.vertex_attrib1f(6, 0.0);
            }
            if std::ptr::eq(layer, &self.nodes) {
                for &(first, count) in frame.nodes_shown {
                    gl.draw_arrays(Gl2::POINTS, first, count.min(layer.count - first));
                }
            } else {
                gl.draw_arrays(Gl2::POINTS, 0, layer.count);
            }
        }
        gl.bind_vertex_array(None);
    }
}
