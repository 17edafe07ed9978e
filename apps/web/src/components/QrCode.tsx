import { create } from "qrcode";
import type { ReactNode } from "react";

/** Light modules around the symbol, as the QR specification asks, so scanners find its edges. */
const QUIET_ZONE = 4;

/**
 * `text` as a QR code drawn in SVG by React: no data: URL or inline markup, so the strict CSP holds.
 * One path of unit squares, one per dark module.
 */
export function QrCode({ text, label }: { readonly text: string; readonly label: string }): ReactNode {
  const { modules } = create(text, { errorCorrectionLevel: "M" });
  const size = modules.size;
  let path = "";
  for (let row = 0; row < size; row++) {
    for (let col = 0; col < size; col++) if (modules.get(row, col) !== 0) path += `M${col + QUIET_ZONE} ${row + QUIET_ZONE}h1v1h-1z`;
  }
  const extent = size + 2 * QUIET_ZONE;
  return (
    <svg className="qr-code" viewBox={`0 0 ${extent} ${extent}`} role="img" aria-label={label} shapeRendering="crispEdges">
      <rect width={extent} height={extent} fill="#fff" />
      <path d={path} fill="#000" />
    </svg>
  );
}
