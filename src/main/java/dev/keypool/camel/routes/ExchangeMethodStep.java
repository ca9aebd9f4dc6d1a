package dev.keypool.camel.routes;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.List;

import org.apache.camel.AsyncCallback;
import org.apache.camel.BeanScope;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.Service;
import org.apache.camel.model.BeanDefinition;
import org.apache.camel.spi.IdAware;
import org.apache.camel.spi.RouteIdAware;
import org.apache.camel.support.AsyncProcessorSupport;
import org.apache.camel.support.CamelContextHelper;

/**
 * A {@code bean} step that names a bean of the registry and a method of it taking the exchange alone and returning
 * nothing ({@code bean: {ref: tenantGate, method: authenticate}}, as every step of the request path does): the method
 * called directly. Camel's bean processor finds the method again on every call (the method's name put in a header and
 * taken out again, an invocation object and its parameter expressions, a reflective call with its access check): about
 * 3.5 % of the gateway's CPU at 64 connections over the twenty bean steps of a request (async-profiler's itimer,
 * bench/builds.sh). What the call does is the same: the method's exception, if any, becomes the exchange's, for the
 * route's error handler. Any other bean step (another scope, an overloaded method, parameters Camel binds, a result for
 * the body, a bean with a lifecycle of its own) is Camel's.
 */
final class ExchangeMethodStep extends AsyncProcessorSupport implements IdAware, RouteIdAware {

    private final String description;
    private final MethodHandle method;
    private String id;
    private String routeId;

    private ExchangeMethodStep(String description, MethodHandle method) {
        this.description = description;
        this.method = method;
    }

    /** The step for {@code definition}, or null when Camel's bean processor must make it. */
    static ExchangeMethodStep of(CamelContext context, BeanDefinition definition) {
        if (definition.getBean() != null || definition.getBeanType() != null || definition.getBeanClass() != null
                || definition.getRef() == null || definition.getMethod() == null) {
            return null;
        }
        String scope = definition.getScope() == null ? null : CamelContextHelper.parseText(context, definition.getScope());
        if (scope != null && !BeanScope.Singleton.name().equalsIgnoreCase(scope)) {
            return null;
        }
        String ref = CamelContextHelper.parseText(context, definition.getRef());
        String name = CamelContextHelper.parseText(context, definition.getMethod());
        // as Camel's singleton scope: the bean of the registry when the route is made
        Object bean = context.getRegistry().lookupByName(ref);
        if (bean == null || bean instanceof Service || name.indexOf('(') >= 0) {
            return null;
        }
        List<Method> named = Arrays.stream(bean.getClass().getMethods()).filter(m -> m.getName().equals(name)).toList();
        if (named.size() != 1) {
            return null;
        }
        Method found = named.get(0);
        if (found.getReturnType() != void.class || found.getParameterCount() != 1
                || found.getParameterTypes()[0] != Exchange.class || Modifier.isStatic(found.getModifiers())
                || !Modifier.isPublic(found.getDeclaringClass().getModifiers())) {
            return null;
        }
        try {
            MethodHandle handle = MethodHandles.publicLookup().unreflect(found).bindTo(bean)
                    .asType(MethodType.methodType(void.class, Exchange.class));
            return new ExchangeMethodStep(ref + "." + name, handle);
        } catch (IllegalAccessException e) {
            return null;
        }
    }

    @Override
    public boolean process(Exchange exchange, AsyncCallback callback) {
        try {
            method.invokeExact(exchange);
        } catch (Throwable e) {
            exchange.setException(e);
        }
        callback.done(true);
        return true;
    }

    @Override
    public String getId() {
        return id;
    }

    @Override
    public void setId(String id) {
        this.id = id;
    }

    @Override
    public String getRouteId() {
        return routeId;
    }

    @Override
    public void setRouteId(String routeId) {
        this.routeId = routeId;
    }

    @Override
    public String toString() {
        return "bean[" + description + "]";
    }
}
