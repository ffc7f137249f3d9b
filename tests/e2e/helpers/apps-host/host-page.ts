/**
 * A test MCP Apps host, in the browser: the extension SDK's own host side (AppBridge from
 * @modelcontextprotocol/ext-apps/app-bridge) frames a view's HTML in a sandboxed iframe (scripts only, an opaque
 * origin, as hosts do), hands it the tool input and result, and forwards the view's tool calls to
 * `window.hostCallTool`, which the test wires to the real SDK client of the real built server (Playwright's
 * exposeFunction). Built into one script by build-host.mjs.
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
}

declare global {
  interface Window {
    hostCallTool(name: string, args: Json): Promise<Json>;
    wgHost: {
      load(o: LoadOptions): Promise<void>;
      sendResult(r: Json): Promise<void>;
      setContext(c: Json): Promise<void>;
      calls: Array<{ name: string; arguments?: Json }>;
      displayRequests: string[];
    };
  }
}

let bridge: AppBridge | undefined;
let frame: HTMLIFrameElement | undefined;

window.wgHost = {
  calls: [],
  displayRequests: [],
  async load(o) {
    frame = document.createElement('iframe');
    frame.setAttribute('sandbox', 'allow-scripts');
    frame.setAttribute('data-testid', 'view-frame');
    frame.style.cssText = `width:${o.width}px;height:${o.height}px;border:1px solid #ccc;display:block`;
    document.body.appendChild(frame);
    const context = { theme: 'light', displayMode: 'inline', availableDisplayModes: ['inline', 'fullscreen'], containerDimensions: { width: o.width, maxHeight: o.height }, ...(o.context ?? {}) };
    bridge = new AppBridge(null, { name: 'workgraph test host', version: '1.0.0' }, { serverTools: {}, logging: {} }, { hostContext: context as never });
    bridge.oncalltool = async (params) => {
      window.wgHost.calls.push({ name: params.name, arguments: params.arguments as Json | undefined });
      return (await window.hostCallTool(params.name, (params.arguments ?? {}) as Json)) as never;
    };
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
    await bridge.sendToolInput({ arguments: o.input ?? {} });
    await bridge.sendToolResult(o.result as never);
  },
  async sendResult(r) {
    await bridge!.sendToolResult(r as never);
  },
  async setContext(c) {
    await bridge!.sendHostContextChange(c as never);
  },
};
