// Small helpers for building the page's own elements (the room bar, the tour panel).

// el makes an element with attributes and children.
export function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  e.append(...kids);
  return e;
}
