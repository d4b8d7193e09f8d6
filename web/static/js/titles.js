// Chart and table titles may name parameters in braces ("Writes over time at N = {clients}").
// fillTitle is the one place the page fills them: headings, charts' accessible names and text
// summaries, and the PNG export's title all come from it, so none shows a raw "{clients}" or
// a value its numbers are not of. (The server fills the titles it renders with lab.FillTitle.)
import { paramValue } from "./format.js";

// fillTitle writes into title the values (URL form, by name) of the parameters it names,
// written for people ("1,000", "5 ms"); params maps names to their declarations.
export function fillTitle(title, params, values) {
  return String(title).replace(/\{(\w+)\}/g, (m, name) => {
    const p = params.get(name);
    return p ? paramValue(p, values[name]) : m;
  });
}
