import { componentName, isRecord, type Component, type Content } from './content';
import type { Design, DesignComponent, DirectiveType } from './design';
import { quoted, shownInput } from './shown-input';

export type { Design, DesignComponent, DesignDirective, DirectiveType } from './design';

const STRING_DIRECTIVES = new Set<string>(['editable', 'html']);
const OBJECT_DIRECTIVES = new Set<string>(['image', 'link', 'include']);

/** Why a directive value does not fit its declared type, or undefined when it does. Null clears any directive. */
function directiveValueProblem(type: DirectiveType, value: unknown): string | undefined {
  if (value === null || value === undefined) return undefined;
  if (STRING_DIRECTIVES.has(type) && typeof value !== 'string') return `must be a string (${type} directive)`;
  if (OBJECT_DIRECTIVES.has(type) && !isRecord(value)) return `must be an object (${type} directive)`;
  return undefined;
}

/**
 * A value of the content as the problems show it: text as is, anything else as JSON, cut by shownInput
 * (ids, identifiers, component, directive and container names come from the importer: a reason stays short).
 */
function shown(value: unknown): string {
  return shownInput(typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value)));
}

/**
 * Every way the content breaks its design, one readable line each (empty = valid): unknown components,
 * identifiers that are not `<design>.<component>`, undeclared directives or containers, and directive
 * values of the wrong shape. Each line names the component id, its identifier and its path in the tree.
 */
export function validateContentAgainstDesign(content: Content, design: Design): string[] {
  const byName = new Map((design.components ?? []).map((component) => [component.name, component]));
  const problems: string[] = [];
  if (!Array.isArray(content)) return ['content must be an array of components'];
  content.forEach((component, index) =>
    checkComponent(component, `content.${index}`, design, byName, problems),
  );
  return problems;
}

function checkComponent(
  component: Component,
  path: string,
  design: Design,
  byName: ReadonlyMap<string, DesignComponent>,
  problems: string[],
): void {
  if (!isRecord(component)) {
    problems.push(`${path}: must be a component object`);
    return;
  }
  const name = componentName(component);
  const label: unknown = component.identifier ?? component.component;
  const shownAs = label === undefined || label === null ? 'no identifier' : shown(label);
  const id = typeof component.id === 'string' ? shown(component.id) : '<no id>';
  const report = (message: string): void => {
    problems.push(`component ${id} (${shownAs}) at ${path}: ${message}`);
  };

  if (name === '') {
    // A name that is no text is none (componentName), but the component has one: say what is wrong with it.
    const identifier: unknown = component.identifier;
    const componentField: unknown = component.component;
    if (identifier !== undefined && identifier !== null && typeof identifier !== 'string') {
      report(`identifier must be a string, '${design.name}.<component name>', got ${shown(identifier)}`);
    } else if (
      componentField !== undefined &&
      componentField !== null &&
      typeof componentField !== 'string'
    ) {
      report(`component must be a string, the component's name, got ${shown(componentField)}`);
    } else {
      report('has neither a component name nor an identifier');
    }
    return;
  }
  const expectedIdentifier = `${design.name}.${name}`;
  if (component.identifier !== undefined && component.identifier !== expectedIdentifier) {
    report(`identifier must be ${quoted(expectedIdentifier)}`);
  }
  const declared = byName.get(name);
  if (!declared) {
    report(`unknown component ${quoted(name)} in design ${design.name}@${design.version}`);
    return;
  }

  if (component.content !== undefined) {
    if (!isRecord(component.content)) {
      report('content must be an object of directive values');
    } else {
      const directives = new Map((declared.directives ?? []).map((directive) => [directive.name, directive]));
      for (const [directiveName, value] of Object.entries(component.content)) {
        const directive = directives.get(directiveName);
        if (!directive) {
          report(`unknown directive ${quoted(directiveName)}`);
          continue;
        }
        const problem = directiveValueProblem(directive.type, value);
        if (problem) report(`directive ${quoted(directiveName)} ${problem}`);
      }
    }
  }

  if (component.containers === undefined) return;
  if (!isRecord(component.containers)) {
    report('containers must be an object of component arrays');
    return;
  }
  const containerNames = new Set(declared.containers ?? []);
  for (const [containerName, children] of Object.entries(component.containers)) {
    if (!containerNames.has(containerName)) {
      report(`unknown container ${quoted(containerName)}`);
      continue;
    }
    if (!Array.isArray(children)) {
      report(`container ${quoted(containerName)} must be an array of components`);
      continue;
    }
    children.forEach((child, index) =>
      checkComponent(child, `${path}.containers.${containerName}.${index}`, design, byName, problems),
    );
  }
}
