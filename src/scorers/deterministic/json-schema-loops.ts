// A schema whose references lead back to where they started without going into the value
// (`{ "$ref": "#" }`, two `$defs` that refer to each other, an `allOf` holding a reference to its
// own schema) validates forever: the validator recursed until it ran out of stack on every value,
// and the score said only "Maximum call stack size exceeded". Found before compiling, it is an
// invalid schema that names the loop.
import { at, pointerSegments, type SchemaMap, withoutFragment } from "./json-schema-walk.js";

/** The subschema a resolved reference names, or undefined when the walk does not know it. */
function target(map: SchemaMap, uri: string): object | undefined {
  const document = withoutFragment(uri);
  const fragment = uri.slice(document.length + 1);
  const found =
    fragment === "" || fragment.startsWith("/")
      ? at(map.resources.get(document), pointerSegments(`#${fragment}`))
      : map.anchors.get(uri);
  return typeof found === "object" && found !== null && map.locations.has(found)
    ? found
    : undefined;
}

/** The subschemas read at the same place in the value as `node`, each with the reference followed. */
function next(map: SchemaMap, node: object): { node: object; viaRef: boolean }[] {
  const steps: { node: object; viaRef: boolean }[] = [];
  const ref = map.refs.get(node);
  const referenced = ref === undefined ? undefined : target(map, ref);
  if (referenced) steps.push({ node: referenced, viaRef: true });
  for (const item of map.inPlace.get(node) ?? [])
    if (typeof item === "object" && item !== null && map.locations.has(item))
      steps.push({ node: item, viaRef: false });
  return steps;
}

/**
 * Why the schema would validate forever, or undefined: a loop of subschemas read at one place in
 * the value, named by where its references lead (`#/$defs/a → #/$defs/b → #/$defs/a`).
 * Depth first without recursion, so a schema nested 100,000 deep is walked too. `$dynamicRef`
 * and `$recursiveRef` are not followed: where they lead depends on the value.
 */
export function referenceLoop(map: SchemaMap): string | undefined {
  const done = new Set<object>();
  for (const start of map.locations.keys()) {
    if (done.has(start)) continue;
    const path: { node: object; steps: ReturnType<typeof next>; viaRef: boolean }[] = [];
    const onPath = new Map<object, number>();
    const enter = (node: object, viaRef: boolean) => {
      onPath.set(node, path.length);
      path.push({ node, steps: next(map, node), viaRef });
    };
    enter(start, false);
    while (path.length > 0) {
      const top = path[path.length - 1]!;
      const step = top.steps.pop();
      if (step === undefined) {
        path.pop();
        onPath.delete(top.node);
        done.add(top.node);
        continue;
      }
      const back = onPath.get(step.node);
      if (back !== undefined) return describeLoop(map, [...path.slice(back + 1), step], step.node);
      if (!done.has(step.node)) enter(step.node, step.viaRef);
    }
  }
  return undefined;
}

function describeLoop(
  map: SchemaMap,
  steps: readonly { node: object; viaRef: boolean }[],
  first: object,
): string {
  const where = (node: object) => `#${map.locations.get(node)}`;
  const targets = steps.filter((step) => step.viaRef).map((step) => where(step.node));
  const chain = [targets.at(-1) ?? where(first), ...targets].join(" → ");
  return `its references loop without going into the value (${chain}), so validating would never end: make the loop pass through a keyword that goes into the value (properties, items, …) or remove it`;
}
