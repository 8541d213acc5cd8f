// A small element builder: the client re-renders a screen from its state, no framework.
type Child = Node | string | number | null | undefined | false;
type Attributes = Record<string, string | number | boolean | EventListener | undefined>;

export function h(tag: string, attributes: Attributes = {}, ...children: Child[]): HTMLElement {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    if (typeof value === "function") element.addEventListener(name.slice(2), value);
    else if (value === true) element.setAttribute(name, "");
    else element.setAttribute(name, String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : String(child));
  }
  return element;
}

/** Replaces the content of `root`, keeping the keyboard focus on the element with the same
 * `data-key` (a re-render after each event must not throw a keyboard player out of the hand). */
export function mount(root: HTMLElement, ...children: Child[]): void {
  const focused = document.activeElement instanceof HTMLElement ? document.activeElement.dataset.key : undefined;
  root.replaceChildren(...children.filter((child): child is Node | string => child !== null && child !== undefined && child !== false).map((child) => (typeof child === "number" ? String(child) : child)));
  if (focused !== undefined) {
    const again = root.querySelector<HTMLElement>(`[data-key="${CSS.escape(focused)}"]`);
    again?.focus();
  }
}
