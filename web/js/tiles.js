// Where two images differ most: SSIM of each 32x32 tile (luma, the tile's own
// means and variances, the constants of Wang et al. 2004). The server keeps
// the frame's worst-tile SSIM but not its place; this finds the place from
// the golden and actual images the page already shows. An approximation of
// compare/'s Gaussian-windowed tile SSIM, good for pointing, not for scoring.

const TILE = 32;
const C1 = (0.01 * 255) ** 2, C2 = (0.03 * 255) ** 2;

function luma(img) {
  const canvas = document.createElement("canvas");
  canvas.width = img.naturalWidth;
  canvas.height = img.naturalHeight;
  const ctx = canvas.getContext("2d", { willReadFrequently: true });
  ctx.drawImage(img, 0, 0);
  const rgba = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
  const y = new Float32Array(canvas.width * canvas.height);
  for (let i = 0; i < y.length; i++)
    y[i] = 0.299 * rgba[4 * i] + 0.587 * rgba[4 * i + 1] + 0.114 * rgba[4 * i + 2];
  return y;
}

function tileSsim(a, b, width, x0, y0, w, h) {
  let sa = 0, sb = 0, saa = 0, sbb = 0, sab = 0;
  for (let y = y0; y < y0 + h; y++)
    for (let x = x0; x < x0 + w; x++) {
      const p = a[y * width + x], q = b[y * width + x];
      sa += p; sb += q; saa += p * p; sbb += q * q; sab += p * q;
    }
  const n = w * h, ma = sa / n, mb = sb / n;
  const va = saa / n - ma * ma, vb = sbb / n - mb * mb, cov = sab / n - ma * mb;
  return ((2 * ma * mb + C1) * (2 * cov + C2)) / ((ma * ma + mb * mb + C1) * (va + vb + C2));
}

// {x, y, w, h, ssim} of the worst tile, or null when the images cannot be compared.
export function worstTile(golden, actual) {
  const width = golden.naturalWidth, height = golden.naturalHeight;
  if (!width || width !== actual.naturalWidth || height !== actual.naturalHeight) return null;
  const a = luma(golden), b = luma(actual);
  let worst = null;
  for (let y = 0; y < height; y += TILE)
    for (let x = 0; x < width; x += TILE) {
      const w = Math.min(TILE, width - x), h = Math.min(TILE, height - y);
      const ssim = tileSsim(a, b, width, x, y, w, h);
      if (!worst || ssim < worst.ssim) worst = { x, y, w, h, ssim };
    }
  return worst;
}
