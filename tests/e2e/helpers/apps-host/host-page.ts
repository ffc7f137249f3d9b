/**
 * A test MCP Apps host, in the browser: the extension SDK's own host side (AppBridge from
 * @modelcontextprotocol/ext-apps/app-bridge) frames a view's HTML in a sandboxed iframe (scripts only, an opaque
 * origin, as hosts do), hands it the tool input and result, and forwards the view's tool calls to
 * `window.hostCallTool` and — for a host that passes resource reads (`resources`, the `serverResources` capability) —
 * its resource reads to `window.hostReadResource`, which the test wires to the real SDK client of the real built
 * server (Playwright's exposeFunction). Built into one script by build-host.mjs.
 */
import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';

type Json = Record<string, unknown>;
interface LoadOptions {
  html: string;
  input?: Json;
  result: Json;
  context?: Json;
  width: number;
  height: number;
  /** The host passes the view's `resources/read` to the server (declares `serverResources`). */
  resources?: boolean;
}

declare global {
  interface Window {
    hostCallTool(name: string, args: Json): Promise<Json>;
    hostReadResource(uri: string): Promise<Json>;
    wgHost: {
      load(o: LoadOptions): Promise<void>;
      sendResult(r: Json): Promise<void>;
      setContext(c: Json): Promise<void>;
      calls: Array<{ name: string; arguments?: Json }>;
      /** The URIs the view read through the host, in order. */
      reads: string[];
      /** When (ms since the epoch, high resolution) the last load began, the view said it was initialized, and its result was sent. */
      timings: { loadStart?: number; initialized?: number; resultSent?: number };
      displayRequests: string[];
    };
  }
}

let bridge: AppBridge | undefined;
let frame: HTMLIFrameElement | undefined;

window.wgHost = {
  calls: [],
  reads: [],
  timings: {},
  displayRequests: [],
  async load(o) {
    const now = () => performance.timeOrigin + performance.now();
    window.wgHost.timings = { loadStart: now() };
    frame = document.createElement('iframe');
    frame.setAttribute('sandbox', 'allow-scripts');
    frame.setAttribute('data-testid', 'view-frame');
    frame.style.cssText = `width:${o.width}px;height:${o.height}px;border:1px solid #ccc;display:block`;
    document.body.appendChild(frame);
    const context = { theme: 'light', displayMode: 'inline', availableDisplayModes: ['inline', 'fullscreen'], containerDimensions: { width: o.width, maxHeight: o.height }, ...(o.context ?? {}) };
    const capabilities = { serverTools: {}, ...(o.resources ? { serverResources: {} } : {}), logging: {} };
    bridge = new AppBridge(null, { name: 'workgraph test host', version: '1.0.0' }, capabilities, { hostContext: context as never });
    bridge.oncalltool = async (params) => {
      window.wgHost.calls.push({ name: params.name, arguments: params.arguments as Json | undefined });
      return (await window.hostCallTool(params.name, (params.arguments ?? {}) as Json)) as never;
    };
    if (o.resources) {
      bridge.onreadresource = async (params) => {
        window.wgHost.reads.push(params.uri);
        return (await window.hostReadResource(params.uri)) as never;
      };
    }
    bridge.onrequestdisplaymode = async ({ mode }) => {
      window.wgHost.displayRequests.push(mode);
      if (mode === 'fullscreen') frame!.style.cssText = 'width:100vw;height:100vh;border:0;display:block';
      else frame!.style.cssText = `width:${o.width}px;height:${o.height}px;border:1px solid #ccc;display:block`;
      await bridge!.sendHostContextChange({ displayMode: mode });
      return { mode };
    };
    const initialized = new Promise<void>((resolve) => (bridge!.oninitialized = () => resolve()));
    await bridge.connect(new PostMessageTransport(frame.contentWindow!, frame.contentWindow!));
    frame.srcdoc = o.html;
    await initialized;
    window.wgHost.timings.initialized = now();
    await bridge.sendToolInput({ arguments: o.input ?? {} });
    window.wgHost.timings.resultSent = now();
    await bridge.sendToolResult(o.result as never);
  },
  async sendResult(r) {
    await bridge!.sendToolResult(r as never);
  },
  async setContext(c) {
    await bridge!.sendHostContextChange(c as never);
  },
};
