// The viewport a preview (GET /preview/{id}) is drawn at: size, font scale and direction.
import { call } from "./api.js";
import { h } from "./dom.js";

const sizes = [["390x844", "Phone, 390 × 844"], ["412x915", "Large phone, 412 × 915"], ["768x1024", "Tablet, 768 × 1024"]];
const fontScales = ["1", "1.3", "2"];

// Labelled fields named `${prefix}-…`, and `apply(query)` that adds their values to a query.
export function viewportFields(prefix) {
  const size = h("select", { id: `${prefix}-size` }, sizes.map(([value, label]) => h("option", { value }, label)));
  const fontScale = h("select", { id: `${prefix}-font-scale` }, fontScales.map((value) => h("option", { value }, `${value}×`)));
  const direction = h("select", { id: `${prefix}-direction` },
    h("option", { value: "ltr" }, "left to right"), h("option", { value: "rtl" }, "right to left"));
  return {
    elements: [
      h("label", { for: size.id }, "Viewport"), size,
      h("label", { for: fontScale.id }, "Font scale"), fontScale,
      h("label", { for: direction.id }, "Direction"), direction,
    ],
    apply(query) {
      const [width, height] = size.value.split("x");
      query.set("width", width);
      query.set("height", height);
      query.set("fontScale", fontScale.value);
      query.set("direction", direction.value);
      return query;
    },
  };
}

// A frame showing `/preview/{id}?{query}`: same origin (its fonts load), and no script runs in it.
// A revision not served to everybody is not public, and a frame cannot send the token: it gets a
// short-lived grant for that revision first (POST …/preview-grant) and carries it in its address.
export function previewFrame(id, query, who) {
  const path = `/preview/${encodeURIComponent(id)}?${query}`;
  const frame = h("iframe", { class: "preview", sandbox: "allow-same-origin", title: `Preview of ${id} ${who}` });
  const revision = new URLSearchParams(query).get("revision");
  if (!revision) {
    frame.src = path;
    return frame;
  }
  call("POST", `/admin/screens/${encodeURIComponent(id)}/revisions/${encodeURIComponent(revision)}/preview-grant`).then(
    (granted) => { frame.src = `${path}&grant=${encodeURIComponent(granted.body.grant)}`; },
    () => { frame.src = path; });  // the preview's own answer says why
  return frame;
}
