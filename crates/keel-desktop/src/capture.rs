//! Screenshots: the window's rectangle read from the root window with `GetImage` and encoded
//! as PNG.
//!
//! The root, not the window itself: `GetImage` on a window fails unless all of it is on screen,
//! and reading the root returns what a person sees there, menus and popups above the window
//! included. Parts of the window off the screen are black.

use keel_computer::desktop::Frame;
use x11rb::connection::Connection as _;
use x11rb::protocol::xproto::{ConnectionExt as _, ImageFormat, ImageOrder, Window};
use x11rb::rust_connection::RustConnection;

use crate::xwin::Geometry;

/// The pixel layout of the root window's images.
struct Layout {
    bits_per_pixel: u8,
    scanline_pad: u8,
    lsb_first: bool,
    masks: [u32; 3],
}

fn layout(x: &RustConnection, screen: usize) -> Result<Layout, String> {
    let setup = x.setup();
    let s = setup.roots.get(screen).ok_or("no such X screen")?;
    let format = setup
        .pixmap_formats
        .iter()
        .find(|f| f.depth == s.root_depth)
        .ok_or("the X server lists no pixmap format for the root depth")?;
    let visual = s
        .allowed_depths
        .iter()
        .flat_map(|d| d.visuals.iter())
        .find(|v| v.visual_id == s.root_visual)
        .ok_or("the root visual is not listed")?;
    Ok(Layout {
        bits_per_pixel: format.bits_per_pixel,
        scanline_pad: format.scanline_pad,
        lsb_first: setup.image_byte_order == ImageOrder::LSB_FIRST,
        masks: [visual.red_mask, visual.green_mask, visual.blue_mask],
    })
}

/// The 8-bit value of a channel under `mask`.
fn channel(pixel: u32, mask: u32) -> u8 {
    if mask == 0 {
        return 0;
    }
    let shifted = (pixel & mask) >> mask.trailing_zeros();
    let bits = (mask >> mask.trailing_zeros()).count_ones();
    // Scale an n-bit channel to 8 bits.
    let max = (1u32 << bits) - 1;
    u8::try_from(shifted * 255 / max.max(1)).unwrap_or(u8::MAX)
}

/// A PNG of the window at `g` on a screen of `screen_size`.
pub(crate) fn capture(
    x: &RustConnection,
    root: Window,
    screen: usize,
    screen_size: (u32, u32),
    g: Geometry,
) -> Result<Frame, String> {
    let (w, h) = (g.width, g.height);
    let mut rgb = vec![0u8; (w as usize) * (h as usize) * 3];
    // The part of the window on the screen.
    let sw = i64::from(screen_size.0);
    let sh = i64::from(screen_size.1);
    let x0 = i64::from(g.x).clamp(0, sw);
    let y0 = i64::from(g.y).clamp(0, sh);
    let x1 = (i64::from(g.x) + i64::from(w)).clamp(0, sw);
    let y1 = (i64::from(g.y) + i64::from(h)).clamp(0, sh);
    if x1 > x0 && y1 > y0 {
        let l = layout(x, screen)?;
        if l.bits_per_pixel != 32 && l.bits_per_pixel != 24 {
            return Err(format!(
                "{}-bit pixels are not supported (24 or 32 are)",
                l.bits_per_pixel
            ));
        }
        let to16 = |v: i64| {
            i16::try_from(v).map_err(|_| "the window is off the X coordinate range".to_string())
        };
        let tou16 =
            |v: i64| u16::try_from(v).map_err(|_| "the window is larger than X allows".to_string());
        let (iw, ih) = (x1 - x0, y1 - y0);
        let image = x
            .get_image(
                ImageFormat::Z_PIXMAP,
                root,
                to16(x0)?,
                to16(y0)?,
                tou16(iw)?,
                tou16(ih)?,
                u32::MAX,
            )
            .map_err(|e| e.to_string())?
            .reply()
            .map_err(|e| format!("GetImage failed: {e}"))?;
        let bytes_pp = usize::from(l.bits_per_pixel / 8);
        let fast =
            bytes_pp == 4 && l.lsb_first && l.masks == [0x00ff_0000, 0x0000_ff00, 0x0000_00ff];
        let pad = usize::from(l.scanline_pad.max(8));
        let iw = iw as usize;
        let stride = (iw * usize::from(l.bits_per_pixel)).div_ceil(pad) * pad / 8;
        let (dx, dy) = (
            (x0 - i64::from(g.x)) as usize,
            (y0 - i64::from(g.y)) as usize,
        );
        for row in 0..(ih as usize) {
            let src = image
                .data
                .get(row * stride..row * stride + iw * bytes_pp)
                .ok_or("GetImage returned too little data")?;
            let dst_start = ((row + dy) * (w as usize) + dx) * 3;
            let dst = &mut rgb[dst_start..dst_start + iw * 3];
            if fast {
                // The usual layout (little-endian BGRX) needs no channel arithmetic.
                for (px, out) in src.chunks_exact(4).zip(dst.chunks_exact_mut(3)) {
                    out.copy_from_slice(&[px[2], px[1], px[0]]);
                }
                continue;
            }
            for (px, out) in src.chunks_exact(bytes_pp).zip(dst.chunks_exact_mut(3)) {
                let mut b = [0u8; 4];
                b[..bytes_pp].copy_from_slice(px);
                let pixel = if l.lsb_first {
                    u32::from_le_bytes(b)
                } else {
                    u32::from_be_bytes(b) >> (8 * (4 - bytes_pp))
                };
                out[0] = channel(pixel, l.masks[0]);
                out[1] = channel(pixel, l.masks[1]);
                out[2] = channel(pixel, l.masks[2]);
            }
        }
    }
    let png = encode(&rgb, w, h)?;
    // The raw pixels are a copy of the screen too (N12).
    rgb.iter_mut().for_each(|b| *b = 0);
    Ok(Frame {
        png,
        width: w,
        height: h,
    })
}

/// PNG-encodes 8-bit RGB pixels. Fast compression: a frame is read once, soon, by one model.
pub(crate) fn encode(rgb: &[u8], width: u32, height: u32) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, width, height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_compression(png::Compression::Fast);
    let mut writer = encoder.write_header().map_err(|e| e.to_string())?;
    writer.write_image_data(rgb).map_err(|e| e.to_string())?;
    writer.finish().map_err(|e| e.to_string())?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn channels_scale_to_eight_bits() {
        assert_eq!(channel(0x00ff_0000, 0x00ff_0000), 255);
        assert_eq!(channel(0x0000_8000, 0x0000_ff00), 128);
        // 5-bit red of RGB565.
        assert_eq!(channel(0xf800, 0xf800), 255);
        assert_eq!(channel(0x1234, 0), 0);
    }

    #[test]
    fn encodes_a_png() {
        let png = encode(&[255, 0, 0, 0, 255, 0], 2, 1).unwrap();
        assert_eq!(&png[1..4], b"PNG");
    }
}
